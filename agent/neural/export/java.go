package export

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/zerokit/zerokit/internal/atomicfile"
	"github.com/zerokit/zerokit/javaadapter"
)

// JavaConfig is the file name of the Java player's settings.
const JavaConfig = javaadapter.PlayerConfig + ".properties"

// writeJava writes the Java player of the 2015 Squatter referee into dir:
// its sources, its settings (the zerokit binary, the agent spec and the
// serve flags, as zerokit_player.json has them) and, with
// opts.JavaReferee, its jar.
func writeJava(dir, spec, binary string, opts Options) error {
	if err := javaadapter.WriteSources(dir); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# Settings of zerokit.ZerokitPlayer, written by zerokit export; see README.txt.\n")
	b.WriteString("# System properties zerokit_player.KEY and variables ZEROKIT_PLAYER_KEY override them.\n")
	if binary != "" {
		fmt.Fprintf(&b, "binary=%s\n", propertyValue(binary))
	}
	fmt.Fprintf(&b, "agent=%s\n", propertyValue(spec))
	fmt.Fprintf(&b, "args=%s\n", propertyValue(strings.Join(opts.ServeArgs, " ")))
	if err := atomicfile.WriteFile(filepath.Join(dir, JavaConfig), []byte(b.String()), 0o644); err != nil {
		return err
	}
	if opts.JavaReferee == "" {
		return nil
	}
	build, err := os.MkdirTemp("", "zerokit-java-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(build)
	_, classes, err := javaadapter.Build(context.Background(), opts.Javac, opts.JavaReferee, build)
	if err != nil {
		return err
	}
	return javaadapter.WriteJar(classes, filepath.Join(dir, javaadapter.JarName))
}

// propertyValue escapes s for a Java .properties file.
func propertyValue(s string) string {
	s = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`).Replace(s)
	if strings.HasPrefix(s, " ") {
		s = `\` + s
	}
	return s
}
