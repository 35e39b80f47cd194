package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zerokit book writes a book, extends it when run again (solving only the
// new positions), and refuses bad flags and a bad file, which it leaves as
// it was.
func TestBook(t *testing.T) {
	path := filepath.Join(t.TempDir(), "book.txt")
	out, stderr, err := runCmd(t, runBook, "-game", "connect4-5x4", "-out", path, "-max-discs", "2", "-mover", "both", "-parallel", "2", "-table-bits", "12")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	// 1 + 3 + 13 positions up to mirror images: 5 first discs are 3; 25
	// pairs, 1 its own mirror (22), are 13.
	if !strings.Contains(out, "book.txt: 17 positions (17 new, 0 read), 0 of the 17 asked for still missing") {
		t.Fatalf("first run: %s", out)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(text), "# zerokit book v1\n# board: 5x4\n# written by: zerokit book -game connect4-5x4") || !strings.Contains(string(text), "\n- ") {
		t.Fatalf("book:\n%s", text)
	}
	out, stderr, err = runCmd(t, runBook, "-game", "connect4-5x4", "-out", path, "-max-discs", "4", "-mover", "second", "-from", "2", "-table-bits", "12")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	text, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(text), "# written by: zerokit book") != 2 {
		t.Fatalf("the book does not name both commands:\n%s", text)
	}
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var done, asked int
		if _, err := fmt.Sscanf(l, "book: %d/%d", &done, &asked); err != nil || done < 1 || done > asked {
			t.Fatalf("progress line %q", l)
		}
	}
	// The positions read are not solved again.
	if !strings.Contains(out, " new, 17 read), 0 of the") || strings.Count(stderr, "book: ") == 0 {
		t.Fatalf("second run: %s\n%s", out, stderr)
	}

	for _, tc := range []struct{ args, want string }{
		{"-game connect4-5x4", "-out is required"},
		{"-game wyb -out " + path, "no opening book"},
		{"-game connect4-5x4 -out " + path + " -mover third", `-mover "third"`},
		{"-game connect4-5x4 -out " + path + " -from 2x", "not a column digit"},
		{"-game connect4-5x4 -out " + path + " -from 00000 -max-discs 5", "column 0 is full"},
		{"-game connect4-5x4 -out " + path + " -from 22 -max-discs 1", "-max-discs 1"},
		{"-game connect4 -out " + path, "board: 5x4"}, // the file is another board's
		{"-game connect4-5x4 -out " + path + " -parallel 0", "-parallel"},
	} {
		if _, _, err := runCmd(t, runBook, strings.Fields(tc.args)...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("book %s: error %v, want it to say %q", tc.args, err, tc.want)
		}
	}
	after, err := os.ReadFile(path)
	if err != nil || len(after) < len(text) {
		t.Fatalf("the book after the refusals: %d bytes, %v", len(after), err)
	}
}
