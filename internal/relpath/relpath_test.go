package relpath

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTo(t *testing.T) {
	for _, tc := range []struct{ dir, path, want string }{
		{"/work/main", "/work/runs/c4/average.ckpt", "../runs/c4/average.ckpt"},
		{"/work/main", "/work/main/configs/c.yaml", "configs/c.yaml"},
		{"/work/main", "configs/c.yaml", "configs/c.yaml"},
		{"", "/work/runs/x", "/work/runs/x"},
		{"relative", "/work/runs/x", "/work/runs/x"},
		{"/work/main", "", ""},
	} {
		if got := To(tc.dir, tc.path); got != tc.want {
			t.Errorf("To(%q, %q) = %q, want %q", tc.dir, tc.path, got, tc.want)
		}
	}
}

func TestToWorkingDir(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got := ToWorkingDir(filepath.Join(wd, "a", "b")); got != filepath.Join("a", "b") {
		t.Errorf("ToWorkingDir(wd/a/b) = %q", got)
	}
	if got := ToWorkingDir("x/y"); got != "x/y" {
		t.Errorf("ToWorkingDir(x/y) = %q", got)
	}
}
