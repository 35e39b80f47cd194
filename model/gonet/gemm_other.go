//go:build !amd64 || purego

package gonet

// useAsm is false: there are no assembly kernels for this platform (or
// the purego tag is set).
const useAsm = false

func gemmAsm(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, flags int) {
	gemmGo(m, n, k, a, lda, b, ldb, c, ldc, bias, flags)
}
