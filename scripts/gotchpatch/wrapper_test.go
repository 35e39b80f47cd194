package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrapperScriptFlags runs scripts/build-torch-wrapper.sh with a fake
// compiler over a fake libtorch and checks that it compiles and links with
// the flags this program uses for the same libtorch (toolchain.cxxFlags and
// ldFlags), so that a rebuilt wrapper matches the one setup.sh built.
func TestWrapperScriptFlags(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found")
	}
	for _, tt := range []struct {
		name         string
		cuda, oldABI bool
	}{{"cpu", false, false}, {"cuda-old-abi", true, true}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			lt := filepath.Join(dir, "libtorch")
			write := func(path, text string) {
				t.Helper()
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			write(filepath.Join(lt, "include/torch/csrc/api/include/torch/torch.h"), "")
			write(filepath.Join(lt, "lib/libtorch_cpu.so"), "")
			cmake := "set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=1\")\n"
			if tt.oldABI {
				cmake = "set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=0\")\n"
			}
			write(filepath.Join(lt, "share/cmake/Torch/TorchConfig.cmake"), cmake)
			if tt.cuda {
				write(filepath.Join(lt, "lib/libtorch_cuda.so"), "")
			}
			libtch := filepath.Join(dir, "libtch")
			write(filepath.Join(libtch, "torch_api.h"), "")
			write(filepath.Join(libtch, "cxx/torch_api.cpp"), "")
			// The fake compiler records its arguments and writes the output.
			args := filepath.Join(dir, "args")
			write(filepath.Join(dir, "fakecxx"), "#!/bin/sh\nprintf '%s\\n' \"$@\" > "+args+"\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then : > \"$2\"; fi; shift; done\n")
			out := filepath.Join(dir, "out")

			cmd := exec.Command("bash", "../build-torch-wrapper.sh", lt, out, libtch)
			cmd.Env = append(os.Environ(), "CXX="+filepath.Join(dir, "fakecxx"))
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			if _, err := os.Stat(filepath.Join(out, sharedName)); err != nil {
				t.Fatalf("no library written: %v", err)
			}
			b, err := os.ReadFile(args)
			if err != nil {
				t.Fatal(err)
			}
			got := "\n" + string(b)
			tc, err := newToolchain(lt)
			if err != nil {
				t.Fatal(err)
			}
			if tc.cuda != tt.cuda || tc.oldABI != tt.oldABI {
				t.Fatalf("toolchain cuda=%v oldABI=%v, want %v %v", tc.cuda, tc.oldABI, tt.cuda, tt.oldABI)
			}
			for _, flags := range [][]string{tc.cxxFlags(), tc.ldFlags()} {
				if want := "\n" + strings.Join(flags, "\n") + "\n"; !strings.Contains(got, want) {
					t.Errorf("compiler arguments lack the sequence%s\ngot:%s", want, got)
				}
			}
			for _, f := range []string{"-shared", "-fPIC", "-Wl,-soname," + sharedName} {
				if !strings.Contains(got, "\n"+f+"\n") {
					t.Errorf("compiler arguments lack %q:%s", f, got)
				}
			}
		})
	}
}
