//go:build !gcs

package runstore

const gcsBuilt = false
