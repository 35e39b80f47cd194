package wubpp

import (
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env/wyb"
)

func TestParse(t *testing.T) {
	cases := []struct {
		line    string
		want    Message
		wantErr string
	}{
		{line: "PLAY alice secret", want: Message{Head: Play, Name: "alice", Key: "secret"}},
		{line: "PLAY alice \r", want: Message{Head: Play, Name: "alice"}}, // netreferee.py without a key
		{line: "PLAY alice", want: Message{Head: Play, Name: "alice"}},
		{line: "OKAY", want: Message{Head: Okay}},
		{line: "  OKAY  ", want: Message{Head: Okay}},
		{line: "GAME alice bob", want: Message{Head: Game, White: "alice", Black: "bob"}},
		{line: "INIT black", want: Message{Head: Init, Colour: "black"}},
		{line: "TURN 23", want: Message{Head: Turn, Turns: 23}},
		{line: "ACTN place 3 4", want: Message{Head: Actn, Action: Action{Kind: Place, X: 3, Y: 4}}},
		{line: "UPD8 move 1 2 1 4", want: Message{Head: Upd8, Action: Action{Kind: Move, X: 1, Y: 2, XB: 1, YB: 4}}},
		{line: "ACTN pass", want: Message{Head: Actn, Action: Action{Kind: Pass}}},
		{line: "ACTN place 3 4 5", want: Message{Head: Actn, Action: Action{Kind: Place, X: 3, Y: 4}}}, // extra parts ignored, as wubpp.py
		{line: "ACTN place -1 +9", want: Message{Head: Actn, Action: Action{Kind: Place, X: -1, Y: 9}}},
		{line: "ERRO white invalid action: place (3, 7) is off", want: Message{Head: Erro, Loser: "white", Reason: "invalid action: place (3, 7) is off"}},
		{line: "OVER draw", want: Message{Head: Over, Winner: "draw"}},
		{line: "TURN5", want: Message{Head: Turn, Turns: 5}}, // head is the first four characters, as wubpp.py
		{line: "", wantErr: "empty message"},
		{line: "OK", wantErr: "unknown message"},
		{line: "HELO there", wantErr: "unknown message head"},
		{line: "okay", wantErr: "unknown message head"},
		{line: "PLAY", wantErr: "PLAY needs 1 part"},
		{line: "PLAY " + strings.Repeat("n", MaxWord+1), wantErr: "longer than"},
		{line: "PLAY a " + strings.Repeat("k", MaxWord+1), wantErr: "longer than"},
		{line: "GAME alice", wantErr: "GAME needs 2 part"},
		{line: "TURN x", wantErr: "not an integer"},
		{line: "TURN 99999999999999999999", wantErr: "not an integer"},
		{line: "ACTN", wantErr: "missing action"},
		{line: "ACTN fly 1 2", wantErr: "unknown action type"},
		{line: "ACTN place 3", wantErr: "place needs 2 coordinates, got 1"},
		{line: "ACTN move 1 2 3", wantErr: "move needs 4 coordinates"},
		{line: "ACTN place 3.0 4", wantErr: "not an integer"},
		{line: "ERRO", wantErr: "ERRO needs 1 part"},
		{line: "OVER", wantErr: "OVER needs 1 part"},
		{line: "PLAY \xff", wantErr: "not valid UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			got, err := Parse(c.line)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("Parse(%q) = %+v, %v; want error containing %q", c.line, got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Parse(%q) = %+v, %v; want %+v", c.line, got, err, c.want)
			}
		})
	}
}

func TestMessageString(t *testing.T) {
	cases := []struct {
		m    Message
		want string
	}{
		{Message{Head: Play, Name: "a"}, "PLAY a"},
		{Message{Head: Play, Name: "a", Key: "k"}, "PLAY a k"},
		{Message{Head: Okay}, "OKAY"},
		{Message{Head: Game, White: "a", Black: "b"}, "GAME a b"},
		{Message{Head: Init, Colour: White}, "INIT white"},
		{Message{Head: Turn, Turns: 7}, "TURN 7"},
		{Message{Head: Actn, Action: Action{Kind: Place, X: 1, Y: 2}}, "ACTN place 1 2"},
		{Message{Head: Upd8, Action: Action{Kind: Move, X: 1, Y: 2, XB: 3, YB: 2}}, "UPD8 move 1 2 3 2"},
		{Message{Head: Upd8, Action: Action{Kind: Pass}}, "UPD8 pass"},
		{Message{Head: Erro, Loser: Black, Reason: "two\nlines"}, "ERRO black two lines"},
		{Message{Head: Over, Winner: Draw}, "OVER draw"},
	}
	for _, c := range cases {
		if got := c.m.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.m, got, c.want)
		}
		if back, err := Parse(c.want); err != nil || back.String() != c.want {
			t.Errorf("Parse(%q) = %+v, %v", c.want, back, err)
		}
	}
}

// TestActionForms converts every engine action to the message form and
// back through the referee's form.
func TestActionForms(t *testing.T) {
	for a := range wyb.NumActions {
		m, err := FromEngine(a)
		if kind, _, _, tx, ty := wyb.DecodeAction(a); (kind == wyb.StepKind || kind == wyb.JumpKind) && (tx < 0 || ty < 0 || tx >= wyb.Size || ty >= wyb.Size) {
			continue // moves off the board have no referee form
		}
		if err != nil {
			t.Fatalf("FromEngine(%d): %v", a, err)
		}
		back, err := wyb.ParseRefereeAction([]byte(m.Referee()))
		if err != nil || back != a {
			t.Fatalf("action %d -> %v -> %s -> %d, %v", a, m, m.Referee(), back, err)
		}
		if got, err := FromReferee(m.Referee()); err != nil || got != m {
			t.Fatalf("FromReferee(%s) = %v, %v; want %v", m.Referee(), got, err, m)
		}
	}
	if _, err := FromEngine(-1); err == nil {
		t.Error("FromEngine(-1) accepted")
	}
	if _, err := FromReferee("[9, 9]"); err == nil {
		t.Error("FromReferee([9, 9]) accepted")
	}
}

// FuzzParse checks that Parse never panics, and that what it accepts
// writes back to a line that parses to the same message.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"PLAY alice ", "PLAY a k", "OKAY", "GAME a b", "INIT white", "TURN 3",
		"ACTN place 3 4", "UPD8 move 1 2 1 3", "ACTN pass", "ERRO white bad move", "OVER draw", "TURN5", "ACTN place 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		m, err := Parse(line)
		if err != nil {
			return
		}
		s := m.String()
		back, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q) = %+v, whose String %q does not parse: %v", line, m, s, err)
		}
		if back != m {
			t.Fatalf("Parse(%q) = %+v; Parse(%q) = %+v", line, m, s, back)
		}
	})
}
