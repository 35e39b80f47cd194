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
// its sources, its settings (the zerokit binary, the agent spec, the
// budget per game, the CPU limit and more serve flags) and, with
// opts.JavaReferee, its jar.
func writeJava(dir, spec, binary string, budget Budget, opts Options) error {
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
	b.WriteString("# The agent's thinking budget per game and its CPU limit, in seconds;\n")
	b.WriteString("# course: the 2015 course's limit for the referee's N (7.5 s on 6x6, 10 s on\n")
	b.WriteString("# 7x7, 10 s * N * N / 49 above), and 80% of it for the budget.\n")
	fmt.Fprintf(&b, "game_time=%s\n", property(budget.GameTime, budget.CourseGameTime))
	fmt.Fprintf(&b, "cpu_limit=%s\n", property(budget.CPULimit, budget.CourseCPULimit))
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

// JavaAgent returns the agent spec that the Java player of the exported
// Squatter agent in dir runs (its zerokit_player.properties' agent key, as
// writeJava writes it), "" when it names none.
func JavaAgent(dir string) (string, error) {
	return JavaSetting(dir, "agent")
}

// JavaSetting returns the value of key in the zerokit_player.properties of
// the exported Squatter agent in dir, as writeJava writes it, "" when
// absent.
func JavaSetting(dir, key string) (string, error) {
	path := filepath.Join(dir, JavaConfig)
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), key+"="); ok {
			return unescapeProperty(v), nil
		}
	}
	return "", nil
}

// unescapeProperty undoes propertyValue.
func unescapeProperty(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// propertyValue escapes s for a Java .properties file.
func propertyValue(s string) string {
	s = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`).Replace(s)
	if strings.HasPrefix(s, " ") {
		s = `\` + s
	}
	return s
}
