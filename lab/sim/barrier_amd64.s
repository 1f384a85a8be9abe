#include "textflag.h"

// func callerPC() uintptr
//
// It returns the return address of the function that called it, read from
// that function's frame: with frame pointers (Go's default on amd64) BP
// still points at the caller's saved BP, and the return address sits just
// above it. NOFRAME keeps BP untouched.
TEXT ·callerPC(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ 8(BP), AX
	MOVQ AX, ret+0(FP)
	RET
