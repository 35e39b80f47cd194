package torch

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>

// zk_blas_threads sets OpenBLAS's thread count to n if OpenBLAS is loaded
// and n > 0, and returns the count in effect (-1 without OpenBLAS).
static int zk_blas_threads(int n) {
	void (*set)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
	int (*get)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
	if (!set || !get) return -1;
	if (n > 0 && get() != n) set(n);
	return get();
}
*/
import "C"

// BLASThreads returns the number of threads OpenBLAS uses inside one BLAS
// call, or -1 when libtorch does not use OpenBLAS.
//
// Every network this package builds sets it to 1. libtorch already splits
// an operation across Config.Threads threads, and OpenBLAS's own threads
// serialise concurrent callers (its multithreaded level-3 routines share
// one lock): two single-threaded networks evaluating self-play batches at
// the same time reached 777 positions/s with OpenBLAS's default of one
// thread per core and 1,017 with one thread per call (zerokit bench on the
// 2-core reference machine; one network alone: 684).
func BLASThreads() int { return int(C.zk_blas_threads(0)) }

// singleThreadedBLAS sets OpenBLAS (if loaded) to one thread per call.
func singleThreadedBLAS() { C.zk_blas_threads(1) }
