//go:build gcs

package runstore

import _ "gocloud.dev/blob/gcsblob" // gs://

const gcsBuilt = true
