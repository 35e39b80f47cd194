//go:build s3

package runstore

import _ "gocloud.dev/blob/s3blob" // s3://

const s3Built = true
