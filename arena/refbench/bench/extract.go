package bench

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// stampName is the file in an extracted agent's folder that records what
// was extracted, so that a second Extract leaves it alone.
const stampName = ".zerokit-bench.json"

// stamp is what stampName holds.
type stamp struct {
	Repo   string   `json:"repo"`
	Commit string   `json:"commit"`
	Files  []string `json:"files"`
}

// Extracted is what Extract did with one agent.
type Extracted struct {
	Name string
	// Dir is the agent's folder (Dir/TREE as in the repository).
	Dir string
	// Status is "extracted", "up to date", or "failed" with Err.
	Status string
	Err    error
}

// SnapshotDir returns the git directory of repo's snapshot in mirrors:
// mirrors/OWNER+NAME/repo/.git, mirrors/OWNER+NAME/repo (bare) or
// mirrors/OWNER+NAME (the layouts the fetch tool leaves).
func SnapshotDir(mirrors, repo string) (string, error) {
	base := filepath.Join(mirrors, strings.Replace(repo, "/", "+", 1))
	for _, d := range []string{filepath.Join(base, "repo", ".git"), filepath.Join(base, "repo"), base} {
		if st, err := os.Stat(filepath.Join(d, "HEAD")); err == nil && !st.IsDir() {
			return d, nil
		}
	}
	return "", fmt.Errorf("no snapshot of %s under %s (want %s/repo with a git directory)", repo, mirrors, base)
}

// Extract extracts each agent of m (those that run, or all with all set)
// at its pinned commit from its snapshot in mirrors into dest/NAME,
// unmodified. An agent already extracted at the same commit with the same
// files is left as it is. It returns what it did per agent; err reports a
// failure that stops it all (no git, dest not writable).
func Extract(ctx context.Context, m Manifest, mirrors, dest string, all bool) ([]Extracted, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("bench: extract: no git: %w", err)
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, fmt.Errorf("bench: extract: %w", err)
	}
	var out []Extracted
	for _, a := range m.Agents {
		if !a.Runs && !all {
			continue
		}
		e := Extracted{Name: a.Name, Dir: filepath.Join(dest, a.Name)}
		switch done, err := extractOne(ctx, a, mirrors, dest); {
		case err != nil:
			e.Status, e.Err = "failed", err
		case done:
			e.Status = "extracted"
		default:
			e.Status = "up to date"
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		out = append(out, e)
	}
	return out, nil
}

// extractOne extracts a into dest/a.Name, reporting false when it was
// already there.
func extractOne(ctx context.Context, a Agent, mirrors, dest string) (bool, error) {
	dir := filepath.Join(dest, a.Name)
	want := stamp{Repo: a.Repo, Commit: a.Commit, Files: a.Files}
	if b, err := os.ReadFile(filepath.Join(dir, stampName)); err == nil {
		var have stamp
		if json.Unmarshal(b, &have) == nil && have.Repo == want.Repo && have.Commit == want.Commit && slices.Equal(have.Files, want.Files) {
			return false, nil
		}
	}
	gitDir, err := SnapshotDir(mirrors, a.Repo)
	if err != nil {
		return false, err
	}
	args := []string{"--git-dir=" + gitDir, "archive", "--format=tar", a.Commit}
	if !slices.Contains(a.Files, ".") {
		args = append(append(args, "--"), a.Files...)
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return false, err
	}
	if err := cmd.Start(); err != nil {
		return false, err
	}
	tmp, err := os.MkdirTemp(dest, "."+a.Name+"-")
	if err != nil {
		_ = cmd.Wait()
		return false, err
	}
	defer os.RemoveAll(tmp)
	untarErr := untar(pipe, tmp)
	_, _ = io.Copy(io.Discard, pipe)
	if err := cmd.Wait(); err != nil {
		return false, fmt.Errorf("git archive %s of %s: %v: %s", a.Commit, a.Repo, err, strings.TrimSpace(stderr.String()))
	}
	if untarErr != nil {
		return false, fmt.Errorf("extracting %s of %s: %w", a.Commit, a.Repo, untarErr)
	}
	b, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		return false, err
	}
	if err := os.WriteFile(filepath.Join(tmp, stampName), b, 0o644); err != nil {
		return false, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return false, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return false, err
	}
	return true, nil
}

// untar writes the regular files and folders of the tar stream r under
// dir, refusing paths that leave it; links and other entries are skipped
// (a course agent needs none).
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(strings.TrimSuffix(h.Name, "/"))
		if name == "" || name == "." || h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		if !filepath.IsLocal(name) {
			return fmt.Errorf("archive entry %q leaves the folder", h.Name)
		}
		target := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if h.Mode&0o111 != 0 {
				mode = 0o755
			}
			f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}
