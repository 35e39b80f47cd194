package runstore

import (
	"strings"
	"testing"
)

// s3://, gs:// and azblob:// open in a build with their tag, and otherwise
// fail with an error naming the tag; file:// is in every build.
func TestOptionalDrivers(t *testing.T) {
	for _, tc := range []struct {
		url, tag string
		built    bool
	}{
		{"gs://bucket/run", "gcs", gcsBuilt},
		{"azblob://container/run", "azure", azureBuilt},
		{"s3://bucket/run", "s3", s3Built},
	} {
		t.Run(tc.url, func(t *testing.T) {
			u, _, err := normalise(tc.url)
			if tc.built {
				if err != nil {
					t.Fatalf("normalise(%q): %v", tc.url, err)
				}
				if !strings.Contains(u, "prefix=run") {
					t.Fatalf("normalise(%q) = %q, want the path as the prefix", tc.url, u)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "-tags "+tc.tag) {
				t.Fatalf("normalise(%q) = %q, %v; want an error naming -tags %s", tc.url, u, err, tc.tag)
			}
		})
	}
}

func TestHasDriver(t *testing.T) {
	for _, tc := range []struct {
		scheme string
		want   bool
	}{
		{"file", true},
		{"s3", s3Built},
		{"gs", gcsBuilt},
		{"azblob", azureBuilt},
		{"ftp", false},
		{"", false},
	} {
		if got := HasDriver(tc.scheme); got != tc.want {
			t.Errorf("HasDriver(%q) = %v, want %v", tc.scheme, got, tc.want)
		}
	}
}
