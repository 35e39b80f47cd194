// Package runstore keeps a training run where it lives: in its local run
// directory, or for a distributed run in an object store addressed by a
// URL, through gocloud.dev/blob: one implementation for a
// local directory (file:///abs/dir), S3 and S3-compatible stores such as
// MinIO (s3://bucket/prefix?endpoint=...), Google Cloud Storage
// (gs://bucket/prefix) and Azure Blob Storage (azblob://container/prefix).
// Only the directory is in every build; the object stores' drivers come
// with the build tags s3, gcs and azure (drivers.go).
//
// The trainer ("zerokit train -store URL") writes the run's configuration,
// its checkpoints and the published network; self-play workers ("zerokit
// worker -store URL") read the configuration and the newest network and
// upload the games they play as shards.
//
// Layout under the URL's prefix:
//
//	config.yaml                     the run's configuration (the trainer's)
//	network/current.json            the published network: {"step", "key",
//	                                "sha256", "size", "time"}
//	network/step-000000001000.ckpt  published networks (weights only)
//	games/<hour>/<minute>/<time>-<worker>-<seq>.zk
//	                                game shards (package data's format);
//	                                hour and minute are the upload's UTC
//	                                hour (2006-01-02T15) and minute (04)
//	                                and time its UnixNano (19 digits), so
//	                                keys sort by upload time and a reader
//	                                that polls lists only the last minutes
//	                                (ShardsSince)
//	checkpoints/step-N.ckpt         the trainer's checkpoints (with
//	checkpoints/step-N.state.json   optimizer state) and their state, and
//	checkpoints/latest.json         {"step": N}: the newest complete one
//	metrics.jsonl                   the trainer's metrics, copied at each
//	                                checkpoint
//
//	average.ckpt, meta.json, agent/ the trainer's running mean of the
//	                                weights, its meta.json and its agent
//
// Run is a training run's storage as the trainer sees it, whether the run
// lives in a local directory or in a store: the trainer works in a local
// run directory and a Run keeps it in step with the store (see Run).
//
// Errors. Every operation's error names the store and the operation;
// Transient says whether trying again may help (the store unreachable, a
// server error), as against a missing object (ErrNotExist), refused
// credentials or a bad request.
//
// Atomicity. Every object is written whole or not at all: S3, GCS and
// Azure publish an object when its upload completes, and the file driver
// writes a temporary file beside the final name and renames it. An object
// that names others (current.json, latest.json) is written after them, so
// a reader that sees it can read what it names. Temporary files of the file
// driver end in ".tmp" and never match the names above.
package runstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	// The driver every build has; s3://, gs:// and azblob:// are in
	// drivers_s3.go, drivers_gcs.go and drivers_azure.go, behind tags.
	_ "gocloud.dev/blob/fileblob"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/internal/atomicfile"
)

// Keys of the store's objects (see the package documentation).
const (
	ConfigKey         = "config.yaml"
	CurrentNetworkKey = "network/current.json"
	MetricsKey        = "metrics.jsonl"
	LatestKey         = "checkpoints/latest.json"
	GamesPrefix       = "games/"
	networkPrefix     = "network/"
	checkpointsPrefix = "checkpoints/"
)

// KeepNetworks is how many published networks PublishNetwork keeps (the
// newest ones); KeepCheckpoints is how many trainer checkpoints
// PutCheckpoint keeps.
const (
	KeepNetworks    = 5
	KeepCheckpoints = 2
)

// ErrNotExist is matched (errors.Is) by the errors of reads of objects
// that are not in the store (it is fs.ErrNotExist).
var ErrNotExist = fs.ErrNotExist

var (
	shardKey      = regexp.MustCompile(`^games/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}/[0-9]{2}/([0-9]{19})-([0-9a-z]{1,32})-([0-9]{6,12})\.zk$`)
	workerName    = regexp.MustCompile(`^[0-9a-z]{1,32}$`)
	networkKey    = regexp.MustCompile(`^network/step-([0-9]{12})\.ckpt$`)
	checkpointKey = regexp.MustCompile(`^checkpoints/step-([0-9]{12})\.(ckpt|state\.json)$`)
)

// Store is an open run store. It is safe for concurrent use.
type Store struct {
	bucket *blob.Bucket
	url    string
	scheme string
}

// Open opens the run store at rawURL and checks that it can be reached.
//
//   - file:///abs/dir, or a plain path: a directory (created if missing);
//   - s3://bucket/prefix: S3 (a build with -tags s3), with the standard AWS
//     configuration (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION,
//     profiles); for an S3-compatible store add
//     ?endpoint=http://host:9000&use_path_style=true (and region=... if
//     AWS_REGION is unset);
//   - gs://bucket/prefix: Google Cloud Storage, with the application
//     default credentials (a build with -tags gcs);
//   - azblob://container/prefix: Azure, with AZURE_STORAGE_ACCOUNT and its
//     credentials (a build with -tags azure).
//
// The URL's path (after the bucket) is the run's prefix in the bucket.
// Errors say which part is wrong: the scheme, the bucket, or the
// credentials.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	openURL, scheme, err := normalise(rawURL)
	if err != nil {
		return nil, err
	}
	b, err := blob.OpenBucket(ctx, openURL)
	if err != nil {
		return nil, fmt.Errorf("runstore: open %s: %w", rawURL, err)
	}
	s := &Store{bucket: b, url: rawURL, scheme: scheme}
	if scheme == "file" {
		if err := removeStaleTemp(openURL); err != nil {
			b.Close()
			return nil, err
		}
	} else {
		ok, err := b.IsAccessible(ctx)
		if err != nil {
			b.Close()
			return nil, s.explain("reach the bucket", err)
		}
		if !ok {
			b.Close()
			return nil, fmt.Errorf("runstore: %s: the bucket does not exist (create it first)", rawURL)
		}
	}
	return s, nil
}

// normalise turns the user's URL into the one blob.OpenBucket takes: a
// plain path becomes a file URL, file URLs get the driver options that keep
// temporary files beside their objects (a rename across file systems
// fails) and skip metadata side files, and the path of a bucket URL becomes
// the prefix parameter.
func normalise(raw string) (openURL, scheme string, err error) {
	if raw == "" {
		return "", "", errors.New("runstore: no store URL")
	}
	if !strings.Contains(raw, "://") {
		abs, err := filepath.Abs(raw)
		if err != nil {
			return "", "", fmt.Errorf("runstore: %s: %w", raw, err)
		}
		raw = "file://" + filepath.ToSlash(abs)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", fmt.Errorf("runstore: bad store URL %q: %w", raw, err)
	}
	q := u.Query()
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return "", "", fmt.Errorf("runstore: bad store URL %q: a file URL has an absolute path and no host (file:///abs/dir)", raw)
		}
		if u.Path == "" || u.Path == "/" {
			return "", "", fmt.Errorf("runstore: bad store URL %q: no directory", raw)
		}
		if err := os.MkdirAll(filepath.FromSlash(u.Path), 0o755); err != nil {
			return "", "", fmt.Errorf("runstore: %s: %w", raw, err)
		}
		q.Set("no_tmp_dir", "true")
		q.Set("metadata", "skip")
	case "s3", "gs", "azblob":
		if tag, built, optional := optionalDriver(u.Scheme); optional && !built {
			return "", "", fmt.Errorf("runstore: %s: this zerokit was built without %s:// (its client libraries slow a newcomer's first build); build it with -tags %s (go build -tags %s ./cmd/zerokit; the Dockerfile's image has it), or use file://", raw, u.Scheme, tag, tag)
		}
		if u.Host == "" {
			return "", "", fmt.Errorf("runstore: bad store URL %q: no bucket (%s://bucket/prefix)", raw, u.Scheme)
		}
		if prefix := strings.Trim(u.Path, "/"); prefix != "" {
			if q.Get("prefix") != "" {
				return "", "", fmt.Errorf("runstore: bad store URL %q: a path and a prefix parameter", raw)
			}
			q.Set("prefix", prefix+"/")
		}
		u.Path = ""
	default:
		return "", "", fmt.Errorf("runstore: bad store URL %q: unsupported scheme %q (use file://, s3://, gs:// or azblob://)", raw, u.Scheme)
	}
	u.RawQuery = q.Encode()
	return u.String(), u.Scheme, nil
}

// StaleTempAge is how old a temporary file of the file driver must be for
// Open to delete it: the leftover of an upload whose process died (live
// uploads of a shard or a checkpoint take seconds).
const StaleTempAge = time.Hour

// removeStaleTemp deletes the file driver's temporary files (name.*.tmp)
// older than StaleTempAge in the store directory of the file URL u.
func removeStaleTemp(u string) error {
	pu, err := url.Parse(u)
	if err != nil {
		return err
	}
	root := filepath.FromSlash(pu.Path)
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("runstore: %w", err)
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".tmp") {
			return nil
		}
		info, err := d.Info()
		if err != nil || time.Since(info.ModTime()) < StaleTempAge {
			return nil
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("runstore: removing a stale temporary file: %w", err)
		}
		return nil
	})
}

// explain wraps an error of the store with what was being done and, for
// credential and permission problems, what to check.
func (s *Store) explain(what string, err error) error {
	msg := err.Error()
	hint := ""
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
	case strings.Contains(msg, "failed to retrieve credentials"), strings.Contains(msg, "no EC2 IMDS role found"),
		strings.Contains(msg, "could not find default credentials"), strings.Contains(msg, "DefaultAzureCredential"):
		hint = " (no credentials: " + credentialHint(s.scheme) + ")"
	case gcerrors.Code(err) == gcerrors.PermissionDenied, strings.Contains(msg, "InvalidAccessKeyId"),
		strings.Contains(msg, "SignatureDoesNotMatch"), strings.Contains(msg, "AccessDenied"):
		hint = " (credentials refused: " + credentialHint(s.scheme) + ")"
	}
	return &opError{msg: fmt.Sprintf("runstore: %s: %s%s: %v", s.url, what, hint, err), err: err, credentials: hint != ""}
}

// opError is the error of an operation on the store (see explain).
type opError struct {
	msg string
	err error
	// credentials says the store refused or found no credentials.
	credentials bool
}

func (e *opError) Error() string { return e.msg }
func (e *opError) Unwrap() error { return e.err }

func credentialHint(scheme string) string {
	switch scheme {
	case "s3":
		return "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE"
	case "gs":
		return "set GOOGLE_APPLICATION_CREDENTIALS or run gcloud auth application-default login"
	case "azblob":
		return "set AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY"
	}
	return "check the store's credentials"
}

// URL is the URL the store was opened with.
func (s *Store) URL() string { return s.url }

// Close closes the store.
func (s *Store) Close() error { return s.bucket.Close() }

// Get reads a whole object; a missing one is an error matching ErrNotExist.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.bucket.ReadAll(ctx, key)
	if err != nil {
		return nil, s.wrap("read "+key, err)
	}
	return b, nil
}

// Put writes a whole object atomically (see the package documentation),
// replacing any object of that key.
func (s *Store) Put(ctx context.Context, key string, b []byte) error {
	if err := s.bucket.WriteAll(ctx, key, b, nil); err != nil {
		return s.wrap("write "+key, err)
	}
	return nil
}

// PutFile uploads a local file as an object, atomically.
func (s *Store) PutFile(ctx context.Context, key, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("runstore: upload: %w", err)
	}
	defer f.Close()
	if err := s.bucket.Upload(ctx, key, f, &blob.WriterOptions{ContentType: "application/octet-stream"}); err != nil {
		return s.wrap("upload "+key, err)
	}
	return nil
}

// GetFile downloads an object to a local file, atomically (see package
// internal/atomicfile); a missing object is an error matching ErrNotExist.
func (s *Store) GetFile(ctx context.Context, key, path string) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		if err := s.bucket.Download(ctx, key, w, nil); err != nil {
			return s.wrap("download "+key, err)
		}
		return nil
	})
}

// wrap names the action and turns the driver's not-found into ErrNotExist.
func (s *Store) wrap(what string, err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("runstore: %s: %s: %w", s.url, what, ErrNotExist)
	}
	return s.explain(what, err)
}

// Size returns the size in bytes of an object; a missing one is an error
// matching ErrNotExist.
func (s *Store) Size(ctx context.Context, key string) (int64, error) {
	attrs, err := s.bucket.Attributes(ctx, key)
	if err != nil {
		return 0, s.wrap("stat "+key, err)
	}
	return attrs.Size, nil
}

// Transient reports whether err, from an operation of a Store, may go away
// if the operation is tried again: the store could not be reached, timed
// out or answered with a server error. A missing object, refused or
// missing credentials, a bad request or a cancelled context are not
// transient; neither is an error that does not come from the store.
func Transient(err error) bool {
	if err == nil || errors.Is(err, ErrNotExist) || errors.Is(err, context.Canceled) {
		return false
	}
	var oe *opError
	if !errors.As(err, &oe) || oe.credentials {
		return false
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound, gcerrors.InvalidArgument, gcerrors.PermissionDenied, gcerrors.Unimplemented,
		gcerrors.FailedPrecondition, gcerrors.AlreadyExists:
		return false
	}
	return true
}

// list returns the keys under prefix in key order.
func (s *Store) list(ctx context.Context, prefix string) ([]*blob.ListObject, error) {
	for attempt := 1; ; attempt++ {
		objs, err := s.listOnce(ctx, prefix)
		// The file driver stats each name it reads from the directory: a
		// temporary file renamed in between (another process's upload
		// completing) fails the listing with NotFound. Listing again sees
		// the renamed object.
		if err != nil && s.scheme == "file" && gcerrors.Code(err) == gcerrors.NotFound && attempt < 10 {
			continue
		}
		if err != nil {
			return nil, s.explain("list "+prefix, err)
		}
		return objs, nil
	}
}

func (s *Store) listOnce(ctx context.Context, prefix string) ([]*blob.ListObject, error) {
	var objs []*blob.ListObject
	it := s.bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if !o.IsDir {
			objs = append(objs, o)
		}
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].Key < objs[j].Key })
	return objs, nil
}

// Network is a published network.
type Network struct {
	// Step is the training step of its weights.
	Step int64 `json:"step"`
	// Key is its object; SHA256 and Size check a download.
	Key    string `json:"key"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// Time is when it was published.
	Time time.Time `json:"time"`
}

// PublishNetwork uploads the weights of step (a checkpoint file without
// optimizer state) and then makes them the current network, deleting all
// but the newest KeepNetworks published networks.
func (s *Store) PublishNetwork(ctx context.Context, step int64, weights []byte) (Network, error) {
	sum := sha256.Sum256(weights)
	n := Network{Step: step, Key: fmt.Sprintf("%sstep-%012d.ckpt", networkPrefix, step), SHA256: hex.EncodeToString(sum[:]),
		Size: int64(len(weights)), Time: time.Now().UTC().Round(time.Millisecond)}
	if err := s.Put(ctx, n.Key, weights); err != nil {
		return Network{}, err
	}
	b, err := json.Marshal(n)
	if err != nil {
		return Network{}, err
	}
	if err := s.Put(ctx, CurrentNetworkKey, append(b, '\n')); err != nil {
		return Network{}, err
	}
	objs, err := s.list(ctx, networkPrefix)
	if err != nil {
		return n, err
	}
	var old []string
	for _, o := range objs {
		if networkKey.MatchString(o.Key) && o.Key != n.Key {
			old = append(old, o.Key)
		}
	}
	for len(old) >= KeepNetworks {
		if err := s.bucket.Delete(ctx, old[0]); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return n, s.wrap("delete "+old[0], err)
		}
		old = old[1:]
	}
	return n, nil
}

// CurrentNetwork returns the published network; before the first
// publication the error matches ErrNotExist.
func (s *Store) CurrentNetwork(ctx context.Context) (Network, error) {
	b, err := s.Get(ctx, CurrentNetworkKey)
	if err != nil {
		return Network{}, err
	}
	var n Network
	if err := json.Unmarshal(b, &n); err != nil {
		return Network{}, fmt.Errorf("runstore: %s: %s: %w", s.url, CurrentNetworkKey, err)
	}
	if !networkKey.MatchString(n.Key) || len(n.SHA256) != 64 || n.Size <= 0 {
		return Network{}, fmt.Errorf("runstore: %s: %s: bad content %q", s.url, CurrentNetworkKey, strings.TrimSpace(string(b)))
	}
	return n, nil
}

// ReadNetwork downloads a published network's weights and checks them
// against its size and checksum.
func (s *Store) ReadNetwork(ctx context.Context, n Network) ([]byte, error) {
	b, err := s.Get(ctx, n.Key)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	if int64(len(b)) != n.Size || hex.EncodeToString(sum[:]) != n.SHA256 {
		return nil, fmt.Errorf("runstore: %s: %s: %d bytes with sha256 %x, published as %d bytes with sha256 %s",
			s.url, n.Key, len(b), sum, n.Size, n.SHA256)
	}
	return b, nil
}

// minuteLayout names the folders of the game shards: one per hour, one per
// minute in it.
const minuteLayout = "2006-01-02T15/04"

// ShardKey is the key of a game shard uploaded at t by worker (lower-case
// letters and digits, at most 32) as its seq-th shard. Names sort by
// upload time; worker and seq make them unique.
func ShardKey(t time.Time, worker string, seq int64) (string, error) {
	if !workerName.MatchString(worker) {
		return "", fmt.Errorf("runstore: worker name %q: want 1 to 32 lower-case letters and digits", worker)
	}
	if seq < 0 {
		return "", fmt.Errorf("runstore: shard number %d is negative", seq)
	}
	return fmt.Sprintf("%s%s/%019d-%s-%06d.zk", GamesPrefix, t.UTC().Format(minuteLayout), t.UnixNano(), worker, seq), nil
}

// ParseShardKey returns the worker and sequence number of a shard key; ok
// is false for any other key (temporary files among them).
func ParseShardKey(key string) (worker string, seq int64, ok bool) {
	m := shardKey.FindStringSubmatch(key)
	if m == nil {
		return "", 0, false
	}
	seq, err := strconv.ParseInt(m[3], 10, 64)
	if err != nil {
		return "", 0, false
	}
	return m[2], seq, true
}

// PutShard uploads a complete shard (data.ShardBuilder.Bytes) that r
// reads under key (ShardKey), atomically: readers see all of it or nothing,
// whenever the uploading process dies. Retrying with the same key after an
// error cannot duplicate it.
func (s *Store) PutShard(ctx context.Context, key string, r io.Reader) error {
	if _, _, ok := ParseShardKey(key); !ok {
		return fmt.Errorf("runstore: %q is not a shard key", key)
	}
	if err := s.bucket.Upload(ctx, key, r, &blob.WriterOptions{ContentType: "application/octet-stream"}); err != nil {
		return s.wrap("upload "+key, err)
	}
	return nil
}

// Shards returns the keys of all the game shards, oldest upload first. It
// implements data.ShardSource together with Info and Open. Its cost grows
// with the number of shards (a listing returns 1,000 keys per request on
// S3): a reader that polls should use ShardsSince.
func (s *Store) Shards(ctx context.Context) ([]string, error) {
	return s.shards(ctx, GamesPrefix)
}

// ShardsSince returns the keys of the game shards uploaded (by the
// uploader's clock) since the minute of since, oldest first: one listing
// per minute up to the next minute from now, whatever the number of older
// shards (at most 24 hours back).
func (s *Store) ShardsSince(ctx context.Context, since time.Time) ([]string, error) {
	end := time.Now().UTC().Add(time.Minute)
	if start := end.Add(-24 * time.Hour); since.Before(start) {
		since = start
	}
	var keys []string
	for m := since.UTC().Truncate(time.Minute); !m.After(end); m = m.Add(time.Minute) {
		k, err := s.shards(ctx, GamesPrefix+m.Format(minuteLayout)+"/")
		if err != nil {
			return nil, err
		}
		keys = append(keys, k...)
	}
	return keys, nil
}

func (s *Store) shards(ctx context.Context, prefix string) ([]string, error) {
	objs, err := s.list(ctx, prefix)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, o := range objs {
		if _, _, ok := ParseShardKey(o.Key); ok {
			keys = append(keys, o.Key)
		}
	}
	return keys, nil
}

// Info reads a shard's counts from its header and footer (two range
// reads), without downloading it.
func (s *Store) Info(ctx context.Context, key string) (data.ShardInfo, error) {
	attrs, err := s.bucket.Attributes(ctx, key)
	if err != nil {
		return data.ShardInfo{}, s.wrap("stat "+key, err)
	}
	return data.ReadShardInfoAt(rangeReader{ctx: ctx, s: s, key: key}, attrs.Size, key)
}

// Open downloads a shard and returns a reader of its records.
func (s *Store) Open(ctx context.Context, key string) (*data.ShardReader, error) {
	b, err := s.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	return data.NewShardReader(bytes.NewReader(b), key)
}

// rangeReader reads an object by ranges.
type rangeReader struct {
	ctx context.Context
	s   *Store
	key string
}

func (r rangeReader) ReadAt(p []byte, off int64) (int, error) {
	rd, err := r.s.bucket.NewRangeReader(r.ctx, r.key, off, int64(len(p)), nil)
	if err != nil {
		return 0, r.s.wrap("read "+r.key, err)
	}
	defer rd.Close()
	return io.ReadFull(rd, p)
}

// PutCheckpoint uploads the trainer's checkpoint of step (its weights and
// optimizer state, and its state file), then records it as the latest, and
// deletes all but the newest KeepCheckpoints checkpoints.
func (s *Store) PutCheckpoint(ctx context.Context, step int64, ckptPath, statePath string) error {
	base := fmt.Sprintf("%sstep-%012d", checkpointsPrefix, step)
	if err := s.PutFile(ctx, base+".ckpt", ckptPath); err != nil {
		return err
	}
	if err := s.PutFile(ctx, base+".state.json", statePath); err != nil {
		return err
	}
	b, err := json.Marshal(struct {
		Step int64 `json:"step"`
	}{step})
	if err != nil {
		return err
	}
	if err := s.Put(ctx, LatestKey, append(b, '\n')); err != nil {
		return err
	}
	objs, err := s.list(ctx, checkpointsPrefix)
	if err != nil {
		return err
	}
	var steps []int64
	seen := map[int64]bool{}
	for _, o := range objs {
		if m := checkpointKey.FindStringSubmatch(o.Key); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			if !seen[n] {
				seen[n] = true
				steps = append(steps, n)
			}
		}
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i] < steps[j] })
	for len(steps) > KeepCheckpoints {
		old := steps[0]
		steps = steps[1:]
		if old == step {
			continue
		}
		for _, ext := range []string{".ckpt", ".state.json"} {
			key := fmt.Sprintf("%sstep-%012d%s", checkpointsPrefix, old, ext)
			if err := s.bucket.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
				return s.wrap("delete "+key, err)
			}
		}
	}
	return nil
}

// LatestCheckpoint returns the step of the newest complete checkpoint; ok
// is false when there is none.
func (s *Store) LatestCheckpoint(ctx context.Context) (step int64, ok bool, err error) {
	b, err := s.Get(ctx, LatestKey)
	if errors.Is(err, ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	var l struct {
		Step *int64 `json:"step"`
	}
	if err := json.Unmarshal(b, &l); err != nil || l.Step == nil || *l.Step < 0 {
		return 0, false, fmt.Errorf("runstore: %s: %s: bad content %q", s.url, LatestKey, strings.TrimSpace(string(b)))
	}
	return *l.Step, true, nil
}

// GetCheckpoint downloads the checkpoint of step and its state file to
// local files (each atomically).
func (s *Store) GetCheckpoint(ctx context.Context, step int64, ckptPath, statePath string) error {
	base := fmt.Sprintf("%sstep-%012d", checkpointsPrefix, step)
	if err := s.GetFile(ctx, base+".ckpt", ckptPath); err != nil {
		return err
	}
	return s.GetFile(ctx, base+".state.json", statePath)
}
