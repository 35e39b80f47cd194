package runstore

// optionalDriver reports whether the driver of a store scheme is compiled in
// only with a build tag, which tag, and whether this build has it. The Google
// Cloud and Azure client libraries are about 370 packages, which took the
// first build of the zerokit command (part of a newcomer's first command,
// scripts/setup.sh) from 100 s to 157 s of the reference machine
// (docs/install.md).
func optionalDriver(scheme string) (tag string, built, optional bool) {
	switch scheme {
	case "gs":
		return "gcs", gcsBuilt, true
	case "azblob":
		return "azure", azureBuilt, true
	}
	return "", false, false
}
