//go:build amd64 && !purego

#include "textflag.h"

// Flags (see gemm.go).
#define ACC 1
#define RELU 2

// func kern4x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, bias *float32, flags int)
TEXT ·kern4x16(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	MOVQ b+24(FP), DI
	MOVQ ldb+32(FP), R9
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R10
	MOVQ bias+56(FP), AX
	MOVQ flags+64(FP), BX
	SHLQ $2, R8
	SHLQ $2, R9
	SHLQ $2, R10
	LEAQ (SI)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13

	// The accumulators start at the row biases, or zero.
	TESTQ AX, AX
	JZ    zero4
	VBROADCASTSS (AX), Y0
	VBROADCASTSS 4(AX), Y2
	VBROADCASTSS 8(AX), Y4
	VBROADCASTSS 12(AX), Y6
	VMOVAPS      Y0, Y1
	VMOVAPS      Y2, Y3
	VMOVAPS      Y4, Y5
	VMOVAPS      Y6, Y7
	JMP          start4

zero4:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

start4:
	TESTQ CX, CX
	JLE   done4

loop4:
	VMOVUPS      (DI), Y8
	VMOVUPS      32(DI), Y9
	VBROADCASTSS (SI), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS (R11), Y11
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VBROADCASTSS (R12), Y12
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VBROADCASTSS (R13), Y13
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         $4, SI
	ADDQ         $4, R11
	ADDQ         $4, R12
	ADDQ         $4, R13
	ADDQ         R9, DI
	DECQ         CX
	JNZ          loop4

done4:
	TESTQ $ACC, BX
	JZ    relu4
	MOVQ  DX, R8
	VADDPS (R8), Y0, Y0
	VADDPS 32(R8), Y1, Y1
	ADDQ   R10, R8
	VADDPS (R8), Y2, Y2
	VADDPS 32(R8), Y3, Y3
	ADDQ   R10, R8
	VADDPS (R8), Y4, Y4
	VADDPS 32(R8), Y5, Y5
	ADDQ   R10, R8
	VADDPS (R8), Y6, Y6
	VADDPS 32(R8), Y7, Y7

relu4:
	TESTQ $RELU, BX
	JZ    store4
	// max(0, x) with x as the second source keeps NaN.
	VXORPS Y14, Y14, Y14
	VMAXPS Y0, Y14, Y0
	VMAXPS Y1, Y14, Y1
	VMAXPS Y2, Y14, Y2
	VMAXPS Y3, Y14, Y3
	VMAXPS Y4, Y14, Y4
	VMAXPS Y5, Y14, Y5
	VMAXPS Y6, Y14, Y6
	VMAXPS Y7, Y14, Y7

store4:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	ADDQ    R10, DX
	VMOVUPS Y2, (DX)
	VMOVUPS Y3, 32(DX)
	ADDQ    R10, DX
	VMOVUPS Y4, (DX)
	VMOVUPS Y5, 32(DX)
	ADDQ    R10, DX
	VMOVUPS Y6, (DX)
	VMOVUPS Y7, 32(DX)
	VZEROUPPER
	RET

// func kern1x16(k int, a *float32, b *float32, ldb int, c *float32, bias *float32, flags int)
TEXT ·kern1x16(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R9
	MOVQ c+32(FP), DX
	MOVQ bias+40(FP), AX
	MOVQ flags+48(FP), BX
	SHLQ $2, R9
	TESTQ AX, AX
	JZ    zero1
	VBROADCASTSS (AX), Y0
	VMOVAPS      Y0, Y1
	JMP          start1

zero1:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

start1:
	TESTQ CX, CX
	JLE   done1

loop1:
	VBROADCASTSS (SI), Y10
	VFMADD231PS  (DI), Y10, Y0
	VFMADD231PS  32(DI), Y10, Y1
	ADDQ         $4, SI
	ADDQ         R9, DI
	DECQ         CX
	JNZ          loop1

done1:
	TESTQ  $ACC, BX
	JZ     relu1
	VADDPS (DX), Y0, Y0
	VADDPS 32(DX), Y1, Y1

relu1:
	TESTQ $RELU, BX
	JZ    store1
	VXORPS Y14, Y14, Y14
	VMAXPS Y0, Y14, Y0
	VMAXPS Y1, Y14, Y1

store1:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VZEROUPPER
	RET
