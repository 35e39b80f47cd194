//go:build azure

package runstore

import _ "gocloud.dev/blob/azureblob" // azblob://

const azureBuilt = true
