package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/wyb"
)

func TestWebFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-move-time", "0s"}, "-move-time must be positive"},
		{[]string{"-listen", "nowhere:-1"}, "-listen"},
		{[]string{"extra"}, "extra"},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		err := runWeb(context.Background(), tc.args, nil, &out, &errOut)
		if err == nil || !strings.Contains(err.Error()+errOut.String(), tc.want) {
			t.Errorf("zerokit web %q: %v, want an error mentioning %q", tc.args, err, tc.want)
		}
	}
}

// The analysis network is the shipped agent's, or a net: path; other
// agents have none.
func TestWebNetworkEvaluator(t *testing.T) {
	reg, err := newAgents(1)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	g7, err := squatter.New(7)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.networkEvaluator(wyb.New(wyb.Options{}), "default"); err != nil {
		t.Errorf("default for wyb: %v", err)
	}
	if _, err := reg.networkEvaluator(g7, "default"); err != nil {
		t.Errorf("default for squatter7: %v", err)
	}
	for _, spec := range []string{"random", "net", "net:path=/nowhere", "Bad!"} {
		if _, err := reg.networkEvaluator(g7, spec); err == nil {
			t.Errorf("%q: no error", spec)
		}
	}
}

// zerokit web serves the page and the API until its context ends.
func TestWebServes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runWeb(ctx, []string{"-listen", "127.0.0.1:0", "-agent", "random", "-network", "none"}, nil, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url := strings.Fields(strings.TrimPrefix(line, "zerokit web: serving "))[0]
	res, err := http.Get(url + "api/info")
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		DefaultAgent   string `json:"default_agent"`
		DefaultNetwork string `json:"default_network"`
	}
	err = json.NewDecoder(res.Body).Decode(&info)
	res.Body.Close()
	if err != nil || info.DefaultAgent != "random" || info.DefaultNetwork != "" {
		t.Errorf("info %+v, %v", info, err)
	}
	if res, err := http.Get(url); err != nil || res.StatusCode != 200 {
		t.Errorf("the page: %v %v", res, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after Ctrl-C: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("zerokit web did not stop")
	}
}
