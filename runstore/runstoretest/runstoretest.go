// Package runstoretest starts object stores for tests of code that uses
// package runstore: an S3-compatible server in the test's process
// (github.com/johannesboyne/gofakes3, in memory) and file URLs.
package runstoretest

import (
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Credentials of the fake S3 server (it accepts any).
const (
	AccessKey = "zerokit-test-access"
	SecretKey = "zerokit-test-secret"
	Region    = "us-east-1"
)

// S3 is a running in-process S3 server.
type S3 struct {
	// Endpoint is the server's base URL (http://127.0.0.1:port).
	Endpoint string
	backend  *s3mem.Backend
}

// StartS3 starts an in-memory S3-compatible server for the test, stopped
// at its end, with bucket created, and sets the standard AWS environment
// variables of the test process to credentials it accepts (child processes
// inherit them; see Env).
func StartS3(t testing.TB, bucket string) *S3 {
	t.Helper()
	backend := s3mem.New()
	faker := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog()))
	srv := httptest.NewServer(faker.Server())
	t.Cleanup(srv.Close)
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatalf("runstoretest: create bucket %s: %v", bucket, err)
	}
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": AccessKey, "AWS_SECRET_ACCESS_KEY": SecretKey, "AWS_REGION": Region} {
		t.Setenv(k, v)
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "no-aws-config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "no-aws-credentials"))
	return &S3{Endpoint: srv.URL, backend: backend}
}

// URL is the store URL of prefix in bucket on this server.
func (s *S3) URL(bucket, prefix string) string {
	return "s3://" + bucket + "/" + prefix + "?endpoint=" + s.Endpoint + "&use_path_style=true&region=" + Region
}

// Env is the environment a child process needs to reach the server.
func Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + AccessKey, "AWS_SECRET_ACCESS_KEY=" + SecretKey, "AWS_REGION=" + Region}
}

// FileURL is the store URL of a new directory in the test's temporary
// directory.
func FileURL(t testing.TB) string {
	return "file://" + filepath.ToSlash(filepath.Join(t.TempDir(), "store"))
}
