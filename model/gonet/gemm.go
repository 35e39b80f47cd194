package gonet

import "fmt"

// Flags of gemm.
const (
	// gemmAcc adds C's previous values to the product (otherwise they are
	// overwritten).
	gemmAcc = 1 << iota
	// gemmReLU applies ReLU to the result.
	gemmReLU
)

// gemmFunc is the signature of gemm's implementations.
type gemmFunc func(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, flags int)

// gemm computes C = A * B + bias for row-major matrices, A m x k (row
// stride lda), B k x n (ldb) and C m x n (ldc): bias[i] (when bias is not
// nil) is added to row i, C's previous values too with gemmAcc, and the
// result goes through ReLU with gemmReLU. NaN propagates through ReLU.
func gemm(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, flags int) {
	if m <= 0 || n <= 0 {
		return
	}
	// The kernels index without bounds checks: check the extents once.
	// Callers size their buffers, so this is a bug, not bad input.
	if k < 0 || (k > 0 && (len(a) < (m-1)*lda+k || len(b) < (k-1)*ldb+n)) || len(c) < (m-1)*ldc+n ||
		lda < k || ldb < n || ldc < n || (bias != nil && len(bias) < m) {
		panic(fmt.Sprintf("gonet: gemm %dx%dx%d: slices of %d, %d, %d, %d values with strides %d, %d, %d",
			m, n, k, len(a), len(b), len(c), len(bias), lda, ldb, ldc))
	}
	gemmKernel(m, n, k, a, lda, b, ldb, c, ldc, bias, flags)
}

// gemmKernel is gemm's implementation after its checks: gemmAsm when the
// CPU has the assembly kernels, gemmGo otherwise. Benchmarks swap it.
var gemmKernel = func() gemmFunc {
	if useAsm {
		return gemmAsm
	}
	return gemmGo
}()

// gemmGo is gemm in plain Go.
func gemmGo(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, flags int) {
	gemmStart(m, n, c, ldc, bias, flags)
	gemmAdd(m, n, k, a, lda, b, ldb, c, ldc)
	gemmFinish(m, n, c, ldc, flags)
}

// gemmStart sets (or, with gemmAcc, adds to) each row i of the m x n
// matrix C its bias[i] (0 without bias): what a kernel computing C += A * B
// then starts from.
func gemmStart(m, n int, c []float32, ldc int, bias []float32, flags int) {
	for i := 0; i < m; i++ {
		row := c[i*ldc:][:n]
		var bi float32
		if bias != nil {
			bi = bias[i]
		}
		if flags&gemmAcc != 0 {
			for j := range row {
				row[j] += bi
			}
		} else {
			for j := range row {
				row[j] = bi
			}
		}
	}
}

// gemmFinish applies ReLU to C when flags has gemmReLU.
func gemmFinish(m, n int, c []float32, ldc int, flags int) {
	if flags&gemmReLU != 0 {
		for i := 0; i < m; i++ {
			relu(c[i*ldc:][:n])
		}
	}
}

// gemmAdd computes C += A * B: four rows of C at a time, over blocks of
// columns that stay in the L1 cache.
func gemmAdd(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	const colBlock = 256
	for j0 := 0; j0 < n; j0 += colBlock {
		nb := min(colBlock, n-j0)
		i := 0
		for ; i+4 <= m; i += 4 {
			c0 := c[i*ldc+j0:][:nb]
			c1 := c[(i+1)*ldc+j0:][:nb]
			c2 := c[(i+2)*ldc+j0:][:nb]
			c3 := c[(i+3)*ldc+j0:][:nb]
			a0 := a[i*lda:][:k]
			a1 := a[(i+1)*lda:][:k]
			a2 := a[(i+2)*lda:][:k]
			a3 := a[(i+3)*lda:][:k]
			for p := 0; p < k; p++ {
				x0, x1, x2, x3 := a0[p], a1[p], a2[p], a3[p]
				bp := b[p*ldb+j0:][:nb]
				for j, y := range bp {
					c0[j] += x0 * y
					c1[j] += x1 * y
					c2[j] += x2 * y
					c3[j] += x3 * y
				}
			}
		}
		for ; i < m; i++ {
			ci := c[i*ldc+j0:][:nb]
			ai := a[i*lda:][:k]
			for p, x := range ai {
				bp := b[p*ldb+j0:][:nb]
				for j, y := range bp {
					ci[j] += x * y
				}
			}
		}
	}
}

// relu sets the negative values of x to 0 (NaN stays NaN).
func relu(x []float32) {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
}
