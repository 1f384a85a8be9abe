//go:build amd64 && gc

#include "textflag.h"

// func framePCs(pcs *pcKey)
//
// A frameless function: BP is still its caller's frame pointer, which
// points to the saved frame pointer of the caller's caller, with the
// caller's return address one word above it.
TEXT ·framePCs(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ pcs+0(FP), DI
	MOVQ BP, AX
	XORQ CX, CX
walk:
	CMPQ CX, $4
	JGE  done
	TESTQ AX, AX
	JZ   zero
	MOVQ 8(AX), DX
	MOVQ DX, (DI)(CX*8)
	MOVQ 0(AX), AX
	INCQ CX
	JMP  walk
zero:
	CMPQ CX, $4
	JGE  done
	MOVQ $0, (DI)(CX*8)
	INCQ CX
	JMP  zero
done:
	RET
