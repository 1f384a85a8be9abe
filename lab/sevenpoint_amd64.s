//go:build amd64 && !purego

#include "textflag.h"

// func rowFMA8(out, left, mid, right, up, down, prev, next *float32, n int, c *[7]float32)
//
// out[k] = c0·mid[k] + c1·left[k] + c2·right[k] + c3·up[k] + c4·down[k]
//        + c5·prev[k] + c6·next[k] for k < n, n a multiple of 8: eight points
// a pass with AVX2 fused multiply-adds, in the order of the GOEXPERIMENT=simd
// row kernel.
TEXT ·rowFMA8(SB), NOSPLIT, $0-80
	MOVQ out+0(FP), DI
	MOVQ left+8(FP), SI
	MOVQ mid+16(FP), R8
	MOVQ right+24(FP), R9
	MOVQ up+32(FP), R10
	MOVQ down+40(FP), R11
	MOVQ prev+48(FP), R12
	MOVQ next+56(FP), R13
	MOVQ n+64(FP), CX
	MOVQ c+72(FP), AX
	VBROADCASTSS 0(AX), Y0
	VBROADCASTSS 4(AX), Y1
	VBROADCASTSS 8(AX), Y2
	VBROADCASTSS 12(AX), Y3
	VBROADCASTSS 16(AX), Y4
	VBROADCASTSS 20(AX), Y5
	VBROADCASTSS 24(AX), Y6
	SHLQ $2, CX
	XORQ BX, BX

loop:
	CMPQ BX, CX
	JGE  done
	VMULPS      (R8)(BX*1), Y0, Y7
	VFMADD231PS (SI)(BX*1), Y1, Y7
	VFMADD231PS (R9)(BX*1), Y2, Y7
	VFMADD231PS (R10)(BX*1), Y3, Y7
	VFMADD231PS (R11)(BX*1), Y4, Y7
	VFMADD231PS (R12)(BX*1), Y5, Y7
	VFMADD231PS (R13)(BX*1), Y6, Y7
	VMOVUPS     Y7, (DI)(BX*1)
	ADDQ        $32, BX
	JMP         loop

done:
	VZEROUPPER
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv0() (lo, hi uint32)
TEXT ·xgetbv0(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, lo+0(FP)
	MOVL DX, hi+4(FP)
	RET
