//go:build !azure

package runstore

const azureBuilt = false
