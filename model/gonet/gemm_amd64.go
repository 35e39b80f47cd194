//go:build amd64 && !purego

package gonet

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useAsm selects the AVX2/FMA kernels.
var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kern4x16 computes C[0:4, 0:16] = A[0:4, 0:k] * B[0:k, 0:16] + bias[0:4]
// (per row; none when bias is nil), with gemm's flags. Strides are in
// values.
//
//go:noescape
func kern4x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, bias *float32, flags int)

// kern1x16 is kern4x16 for one row.
//
//go:noescape
func kern1x16(k int, a *float32, b *float32, ldb int, c *float32, bias *float32, flags int)

// gemmAsm is gemm with the assembly kernels on 16-column tiles and gemmGo
// on the remaining columns. gemm has checked the extents.
func gemmAsm(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, flags int) {
	n16 := n &^ 15
	pa, pb, pc := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c))
	pbias := unsafe.Pointer(unsafe.SliceData(bias)) // nil for a nil bias
	const f = 4                                     // bytes per value
	for j := 0; j < n16; j += 16 {
		i := 0
		for ; i+4 <= m; i += 4 {
			kern4x16(k, (*float32)(unsafe.Add(pa, i*lda*f)), lda, (*float32)(unsafe.Add(pb, j*f)), ldb,
				(*float32)(unsafe.Add(pc, (i*ldc+j)*f)), ldc, biasAt(pbias, i), flags)
		}
		for ; i < m; i++ {
			kern1x16(k, (*float32)(unsafe.Add(pa, i*lda*f)), (*float32)(unsafe.Add(pb, j*f)), ldb,
				(*float32)(unsafe.Add(pc, (i*ldc+j)*f)), biasAt(pbias, i), flags)
		}
	}
	if n16 < n {
		gemmGo(m, n-n16, k, a, lda, b[n16:], ldb, c[n16:], ldc, bias, flags)
	}
}

// biasAt points to bias value i, or is nil without bias.
func biasAt(bias unsafe.Pointer, i int) *float32 {
	if bias == nil {
		return nil
	}
	return (*float32)(unsafe.Add(bias, i*4))
}
