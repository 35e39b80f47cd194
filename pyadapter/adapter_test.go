package pyadapter

import (
	"bytes"
	"os"
	"testing"
)

func TestPlayerModuleIsTheSource(t *testing.T) {
	got, err := PlayerModule()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(PlayerModuleName)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || !bytes.Contains(got, []byte("class Player")) {
		t.Errorf("embedded module (%d bytes) differs from %s (%d bytes)", len(got), PlayerModuleName, len(want))
	}
}
