package runstore

// optionalDriver reports whether the driver of a store scheme is compiled in
// only with a build tag, which tag, and whether this build has it. The
// object stores' client libraries slow the first build of the zerokit
// command, part of a newcomer's first command (scripts/setup.sh): the Google
// Cloud and Azure ones (about 370 packages) took it from 100 s to 157 s of
// the reference machine, and the S3 one costs 20 s of its 106 s
// (docs/install.md). Only file:// is in every build.
func optionalDriver(scheme string) (tag string, built, optional bool) {
	switch scheme {
	case "s3":
		return "s3", s3Built, true
	case "gs":
		return "gcs", gcsBuilt, true
	case "azblob":
		return "azure", azureBuilt, true
	}
	return "", false, false
}

// HasDriver reports whether this build opens store URLs of scheme (file,
// s3, gs, azblob): file always, the others with their build tag.
func HasDriver(scheme string) bool {
	if scheme == "file" {
		return true
	}
	_, built, optional := optionalDriver(scheme)
	return optional && built
}
