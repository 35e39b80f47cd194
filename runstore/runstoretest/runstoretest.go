// Package runstoretest starts object stores for tests of code that uses
// package runstore: an S3-compatible server in the test's process
// (github.com/johannesboyne/gofakes3, in memory), a real MinIO server in a
// child process (when its binary was built, see scripts/minio.sh), and file
// URLs. Both servers can be stopped and started again on the same address,
// keeping their objects: a store outage.
package runstoretest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/zerokit/zerokit/runstore"
)

// Credentials of the test servers (the fake S3 server accepts any; MinIO is
// started with these as its root user).
const (
	AccessKey = "zerokit-test-access"
	SecretKey = "zerokit-test-secret"
	Region    = "us-east-1"
)

// S3 is a running S3-compatible server.
type S3 struct {
	// Endpoint is the server's base URL (http://127.0.0.1:port).
	Endpoint string
	addr     string

	mu sync.Mutex
	// start starts the server on addr; stop stops it (nil while stopped).
	start func() (stop func(), err error)
	stop  func()
}

// StartS3 starts an in-memory S3-compatible server for the test, stopped
// at its end, with bucket created, and sets the standard AWS environment
// variables of the test process to credentials it accepts (child processes
// inherit them; see Env).
func StartS3(t testing.TB, bucket string) *S3 {
	t.Helper()
	skipWithoutS3(t)
	backend := s3mem.New()
	faker := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog()))
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatalf("runstoretest: create bucket %s: %v", bucket, err)
	}
	setEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("runstoretest: %v", err)
	}
	s := &S3{addr: ln.Addr().String()}
	s.Endpoint = "http://" + s.addr
	serve := func(ln net.Listener) func() {
		srv := &http.Server{Handler: faker.Server()}
		done := make(chan struct{})
		go func() {
			srv.Serve(ln)
			close(done)
		}()
		return func() {
			srv.Close()
			<-done
		}
	}
	s.stop = serve(ln)
	s.start = func() (func(), error) {
		ln, err := net.Listen("tcp", s.addr)
		if err != nil {
			return nil, err
		}
		return serve(ln), nil
	}
	t.Cleanup(s.Stop)
	return s
}

// setEnv points the AWS SDK of the test process and its children at the
// test credentials, and away from any configuration of the machine.
func setEnv(t testing.TB) {
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": AccessKey, "AWS_SECRET_ACCESS_KEY": SecretKey, "AWS_REGION": Region} {
		t.Setenv(k, v)
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "no-aws-config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "no-aws-credentials"))
}

// Stop stops the server: connections are refused until Start. Stopping a
// stopped server does nothing.
func (s *S3) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// Start starts a stopped server again on the same address, with the
// objects it had. Starting a running server does nothing.
func (s *S3) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		return nil
	}
	stop, err := s.start()
	if err != nil {
		return fmt.Errorf("runstoretest: restart the S3 server on %s: %w", s.addr, err)
	}
	s.stop = stop
	return nil
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

// StartMinIO starts the MinIO server binary (see scripts/minio.sh) for the
// test on a free port of 127.0.0.1 with a new data directory, stopped at the
// test's end; it creates bucket and sets the AWS environment as StartS3
// does. The test is skipped, saying why, when binary does not exist.
// MinIO's output goes to the test's log when it fails.
func StartMinIO(t testing.TB, binary, bucket string) *S3 {
	t.Helper()
	skipWithoutS3(t)
	if _, err := os.Stat(binary); errors.Is(err, os.ErrNotExist) {
		t.Skipf("no MinIO server at %s: run scripts/test-deps.sh (or scripts/minio.sh) to build it", binary)
	} else if err != nil {
		t.Fatalf("runstoretest: %v", err)
	}
	setEnv(t)
	data := t.TempDir()
	// A free port: listen, note it and close; MinIO binds it next.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("runstoretest: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	host, port, _ := net.SplitHostPort(addr)
	consoleLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("runstoretest: %v", err)
	}
	console := consoleLn.Addr().String()
	consoleLn.Close()
	var logMu sync.Mutex
	var log []byte
	s := &S3{Endpoint: "http://" + addr, addr: addr}
	s.start = func() (func(), error) {
		// MINIO_CI_CD: a data directory on the root disk is fine.
		cmd := exec.Command(binary, "server", "--quiet", "--address", net.JoinHostPort(host, port), "--console-address", console, data)
		cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+AccessKey, "MINIO_ROOT_PASSWORD="+SecretKey,
			"MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_CI_CD=1", "HOME="+data)
		w := writerFunc(func(p []byte) (int, error) {
			logMu.Lock()
			log = append(log, p...)
			logMu.Unlock()
			return len(p), nil
		})
		cmd.Stdout, cmd.Stderr = w, w
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("runstoretest: start MinIO: %w", err)
		}
		done := make(chan struct{})
		go func() {
			cmd.Wait()
			close(done)
		}()
		stop := func() {
			cmd.Process.Kill()
			<-done
		}
		if err := waitReady(s.Endpoint, done); err != nil {
			stop()
			return nil, err
		}
		return stop, nil
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			logMu.Lock()
			t.Logf("MinIO's output:\n%s", log)
			logMu.Unlock()
		}
	})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if err := createBucket(s.Endpoint, bucket); err != nil {
		t.Fatal(err)
	}
	return s
}

// waitReady waits until the MinIO server at endpoint answers its health
// check (at most a minute), or its process ends.
func waitReady(endpoint string, done <-chan struct{}) error {
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(endpoint + "/minio/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-done:
			return errors.New("runstoretest: MinIO exited before it was ready")
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("runstoretest: MinIO at %s not ready after a minute: %v", endpoint, err)
		}
	}
}

// createBucket creates bucket on the S3 server at endpoint with the test
// credentials.
func createBucket(endpoint, bucket string) error {
	c := s3.New(s3.Options{
		Region:       Region,
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return fmt.Errorf("runstoretest: create bucket %s: %w", bucket, err)
	}
	return nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// skipWithoutS3 skips a test that needs s3:// in a build without its driver
// (runstore's build tag s3; scripts/test.sh sets it).
func skipWithoutS3(t testing.TB) {
	t.Helper()
	if !runstore.HasDriver("s3") {
		t.Skip("s3:// needs the build tag s3 (go test -tags s3; scripts/test.sh sets it)")
	}
}
