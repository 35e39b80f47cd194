package runstore_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/runstore"
	"github.com/zerokit/zerokit/runstore/runstoretest"
)

// TestRetrier: a retried operation succeeds once the store is back, and
// fails with the store's error after the limit; errors that are not
// transient end it at once.
func TestRetrier(t *testing.T) {
	srv := runstoretest.StartS3(t, "zerokit")
	st, err := runstore.Open(context.Background(), srv.URL("zerokit", "r"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out bytes.Buffer
	r := &runstore.Retrier{Limit: time.Minute, Log: slog.New(slog.NewTextHandler(&out, nil)), Stderr: &out, Who: "test"}
	ctx := context.Background()
	srv.Stop()
	tries := 0
	err = r.Do(ctx, "write x", func(ctx context.Context) error {
		tries++
		if tries == 2 {
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
		}
		return st.Put(ctx, "x", []byte("1"))
	})
	if err != nil || tries != 2 {
		t.Fatalf("retried %d times: %v", tries, err)
	}
	for _, want := range []string{"test: warning: write x failed; retrying for up to 1m0s", "test: the store answers again (write x succeeded after", "store operation failed; retrying"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, &out)
		}
	}
	tries = 0
	err = r.Do(ctx, "read y", func(ctx context.Context) error {
		tries++
		_, err := st.Get(ctx, "y")
		return err
	})
	if !errors.Is(err, runstore.ErrNotExist) || tries != 1 {
		t.Errorf("a missing object: %d tries, %v", tries, err)
	}
	srv.Stop()
	r.Limit = 1500 * time.Millisecond
	start := time.Now()
	err = r.Do(ctx, "read x", func(ctx context.Context) error { _, err := st.Get(ctx, "x"); return err })
	if err == nil || !strings.Contains(err.Error(), "read x failed for") || !runstore.Transient(err) {
		t.Errorf("after the limit: %v", err)
	}
	if d := time.Since(start); d < time.Second || d > 30*time.Second {
		t.Errorf("gave up after %v with a limit of 1.5s", d)
	}
}
