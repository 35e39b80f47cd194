//go:build !s3

package runstore

const s3Built = false
