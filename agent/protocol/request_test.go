package protocol

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseRequest(t *testing.T) {
	tests := []struct {
		line    string
		want    Request
		wantErr string
	}{
		{"init white", Request{Cmd: CmdInit, Colour: "white"}, ""},
		{"init black\r", Request{Cmd: CmdInit, Colour: "black"}, ""},
		{"action 0", Request{Cmd: CmdAction, Turns: 0}, ""},
		{"action 127", Request{Cmd: CmdAction, Turns: 127}, ""},
		{"action  12 ", Request{Cmd: CmdAction, Turns: 12}, ""},
		{"update [3, 4]", Request{Cmd: CmdUpdate, Action: "[3, 4]"}, ""},
		{"update [[3, 4], [3, 5]]", Request{Cmd: CmdUpdate, Action: "[[3, 4], [3, 5]]"}, ""},
		{"update null", Request{Cmd: CmdUpdate, Action: "null"}, ""},
		{"quit", Request{Cmd: CmdQuit}, ""},
		{"status", Request{Cmd: CmdStatus}, ""},
		{"locked", Request{Cmd: CmdLocked}, ""},
		{"locked now", Request{}, "locked takes no argument"},
		{"", Request{}, "empty request"},
		{"   ", Request{}, "empty request"},
		{"action +1", Request{}, "not a non-negative integer"},
		{"action 1e3", Request{}, "not a non-negative integer"},
		{"action 1073741824", Request{}, "below"},
		{"action 01", Request{Cmd: CmdAction, Turns: 1}, ""},
		{"update", Request{}, "update needs"},
		{"init", Request{}, "init needs"},
		{"quit x", Request{}, "quit takes no argument"},
		{"status now", Request{}, "status takes no argument"},
		{"bye", Request{}, "unknown command"},
		{"\xc3", Request{}, "not valid UTF-8"},
	}
	for _, tc := range tests {
		got, err := ParseRequest(tc.line)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseRequest(%q) error = %v, want one containing %q", tc.line, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseRequest(%q) = %+v, %v; want %+v", tc.line, got, err, tc.want)
		}
	}
}

func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{"init white", "action 3", "update [[1, 2], [1, 3]]", "update null", "quit", "status", "", "action -1", "init \xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		req, err := ParseRequest(line)
		if err != nil {
			if req != (Request{}) {
				t.Errorf("ParseRequest(%q) returned %+v with error %v", line, req, err)
			}
			if strings.ContainsAny(err.Error(), "\n") && !strings.ContainsAny(line, "\n") {
				t.Errorf("error message spans lines: %q", err)
			}
			return
		}
		if !utf8.ValidString(line) {
			t.Errorf("accepted invalid UTF-8 %q", line)
		}
		switch req.Cmd {
		case CmdInit:
			if req.Colour == "" || strings.ContainsAny(req.Colour, " \t") {
				t.Errorf("ParseRequest(%q) colour %q", line, req.Colour)
			}
		case CmdAction:
			if req.Turns < 0 {
				t.Errorf("ParseRequest(%q) turns %d", line, req.Turns)
			}
		case CmdUpdate:
			if req.Action == "" {
				t.Errorf("ParseRequest(%q) empty action", line)
			}
		case CmdQuit, CmdStatus:
		default:
			t.Errorf("ParseRequest(%q) command %v", line, req.Cmd)
		}
	})
}

// FuzzServe feeds arbitrary bytes to a session: it must answer every line
// with exactly one response and never fail.
func FuzzServe(f *testing.F) {
	f.Add("init white\naction 0\nupdate 2\naction 2\n")
	f.Add("init black\nupdate 1\nupdate 1\naction 9\nquit\n")
	f.Add("\n\n\r\ninit \xff\n")
	f.Fuzz(func(t *testing.T, input string) {
		var out strings.Builder
		cfg := raceConfig()
		cfg.MaxLine = 64
		if err := Serve(t.Context(), strings.NewReader(input), &out, newFirst, cfg); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		lines := strings.Split(input, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		resp := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if out.Len() == 0 {
			resp = nil
		}
		quit := -1
		for i, r := range resp {
			if r == "bye" {
				quit = i
			}
		}
		if quit < 0 && len(resp) != len(lines) {
			t.Fatalf("%d request lines got %d responses: %q", len(lines), len(resp), resp)
		}
		for _, r := range resp {
			if strings.HasPrefix(r, "error internal failure") {
				t.Errorf("panic inside the server: %q", r)
			}
			if r != "ok" && r != "bye" && r != "1" && r != "2" && !strings.HasPrefix(r, "error ") {
				t.Errorf("unexpected response %q", r)
			}
		}
	})
}
