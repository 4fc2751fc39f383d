package zoneapi

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestDocLinks checks every relative link in the repository's Markdown
// files (README.md, docs/*.md, the test inventories beside the packages,
// examples/*.md): the file it names exists, and an #anchor names a heading
// of that file (or of the same file), as GitHub derives anchors from
// headings. Links to other sites are not followed.
func TestDocLinks(t *testing.T) {
	files := markdownFiles(t)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		seen := map[string]int{}
		for _, l := range mdLines(t, path) {
			if l.heading == "" {
				continue
			}
			slug := headingSlug(l.heading)
			if n := seen[slug]; n > 0 {
				a[slug+"-"+strconv.Itoa(n)] = true
			} else {
				a[slug] = true
			}
			seen[slug]++
		}
		anchors[path] = a
		return a
	}
	if len(files) < 10 {
		t.Fatalf("found only %d Markdown files: %v", len(files), files)
	}
	for _, f := range files {
		for _, l := range mdLines(t, f) {
			for _, target := range l.links {
				if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				path := f
				if file != "" {
					path = filepath.Join(filepath.Dir(f), filepath.FromSlash(file))
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s:%d: link %q: no such file %s", f, l.n, target, path)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(path, ".md") {
					t.Errorf("%s:%d: link %q: an anchor in a file that is not Markdown", f, l.n, target)
					continue
				}
				if !anchorsOf(path)[anchor] {
					t.Errorf("%s:%d: link %q: %s has no heading with the anchor #%s", f, l.n, target, path, anchor)
				}
			}
		}
	}
}

// TestReadmeIsTheFrontDoor keeps README.md short and opening with the two
// commands; everything else lives in docs/.
func TestReadmeIsTheFrontDoor(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if n := strings.Count(s, "\n"); n > 250 {
		t.Errorf("README.md has %d lines; keep it under 250 and move the detail to a page in docs/", n)
	}
	i, j := strings.Index(s, "./scripts/run.sh"), strings.Index(s, "./scripts/test.sh")
	if i < 0 || j < 0 || strings.Count(s[:max(i, j)], "\n") > 10 {
		t.Errorf("README.md must open with ./scripts/run.sh and ./scripts/test.sh (within its first 10 lines)")
	}
}

// markdownFiles lists the repository's Markdown files, leaving out build
// output, run state and hidden directories.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || name == "build" || name == "state" || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// mdLine is one line of a Markdown file outside code: its heading text, if
// it is a heading, and the targets of its inline links.
type mdLine struct {
	n       int
	heading string
	links   []string
}

var (
	mdHeading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	mdLink    = regexp.MustCompile(`\]\(([^)\s]*)(?:\s+"[^"]*")?\)`)
	mdCode    = regexp.MustCompile("`[^`]*`")
)

func mdLines(t *testing.T, path string) []mdLine {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []mdLine
	fence := ""
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		l := mdLine{n: n}
		if m := mdHeading.FindStringSubmatch(line); m != nil {
			l.heading = m[1]
		}
		for _, m := range mdLink.FindAllStringSubmatch(mdCode.ReplaceAllString(line, ""), -1) {
			l.links = append(l.links, m[1])
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// headingSlug is GitHub's anchor for a heading: lower case, the Markdown
// of links and code reduced to its text, every character that is not a
// letter, digit, space, hyphen or underscore dropped, spaces made hyphens.
func headingSlug(h string) string {
	h = regexp.MustCompile(`\[([^]]*)\]\([^)]*\)`).ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
