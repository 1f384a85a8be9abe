package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"stencillab.dev/exercises/winnowing"
	"stencillab.dev/internal/nbformat"
)

// The solution scan: a proof that the students' copy holds no answer. The
// instructor's secrets (every solution block of the exercises, in Go, in
// CUDA and in the notebooks; the hidden checks; the notebooks' answer
// cells; the lab's CUDA sources withheld from the students' copy) are
// collected from the instructor's tree, and every file of a
// release is searched for them twice:
//
//   - line by line: each secret's non-trivial lines, whitespace collapsed,
//     looked up among the file's lines;
//   - token by token: each secret's token sequence, identifiers renamed to
//     placeholders in the order they appear and string literals folded, cut
//     into k-grams whose hashes are winnowed into fingerprints (Schleimer,
//     Wilkerson and Aiken, 2003). A copy with renamed variables, other
//     spacing or other error texts keeps its fingerprints.
//
// Go is tokenised by go/scanner, everything else (CUDA, notebooks'
// markdown, CUDA held in a Go string) by a small C tokenizer; Go files and
// notebook code cells are searched with both.

// Secret kinds.
const (
	SecretSolution = "solution" // a block between BEGIN SOLUTION and END SOLUTION
	SecretHidden   = "hidden"   // a file built with the tag "hidden"
	SecretAnswer   = "answer"   // a notebook cell tagged AnswerTag
	SecretWithheld = "withheld" // a CUDA source withheld from the students' copy (WithheldReason)
)

// Secret is text of the instructor's tree that the students' copy must not
// hold.
type Secret struct {
	Kind string // SecretSolution, SecretHidden, SecretAnswer or SecretWithheld
	File string // the file it is in, relative to the root, with slashes
	Cell string // a notebook cell's id, or ""
	Line int    // its first line in the file (in a notebook: in the cell)
	Go   bool   // the text is Go (tokenised by go/scanner as well)
	Text string
	// Stub is public text: the lines and tokens the secret shares with it
	// are not secret. A solution's is its own stub (in a find-the-bug
	// exercise, the broken code it fixes); a hidden file's, every stub; a
	// withheld file's, its placeholder.
	Stub string
}

// Where returns "file:line" or "file cell ID line N".
func (s Secret) Where() string { return where(s.File, s.Cell, s.Line) }

func where(file, cell string, line int) string {
	if cell != "" {
		return fmt.Sprintf("%s cell %s line %d", file, cell, line)
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// exerciseDir matches an exercise's folder, exercises/NN_topic/.
var exerciseDir = regexp.MustCompile(`^exercises/[0-9]{2}_[a-z0-9_]+/`)

// CollectSecrets returns the secrets of the instructor's tree at root: the
// solution blocks of every exercise file (Go and CUDA) and of every
// notebook's code cells, every Go file built with the tag "hidden", every
// notebook cell tagged AnswerTag, and every CUDA source withheld from the
// students' copy (the whole file; a misplaced marker is an error).
func CollectSecrets(root string) ([]Secret, error) {
	files, err := listFiles(root)
	if err != nil {
		return nil, err
	}
	var out []Secret
	for _, rel := range files {
		slash := filepath.ToSlash(rel)
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted since listing
			}
			return nil, fmt.Errorf("release: collect secrets: %w", err)
		}
		why := ""
		if IsCUDA(slash) {
			if why, err = WithheldReason(slash, b); err != nil {
				return nil, err
			}
		}
		switch {
		case why != "":
			stub, err := Placeholder(slash, b)
			if err != nil {
				return nil, err
			}
			out = append(out, Secret{Kind: SecretWithheld, File: slash, Line: 1, Text: string(b), Stub: string(stub)})
		case strings.HasSuffix(slash, ".go") && IsHidden(b):
			out = append(out, Secret{Kind: SecretHidden, File: slash, Line: 1, Go: true, Text: string(b)})
		case strings.HasSuffix(slash, ".go") && exerciseDir.MatchString(slash) && GoHasSolution(b):
			eligible, err := commentLines(b)
			if err != nil {
				return nil, fmt.Errorf("release: %s: %w", slash, err)
			}
			blocks, err := solutionBlocks(slash, string(b), eligible)
			if err != nil {
				return nil, err
			}
			for _, bl := range blocks {
				out = append(out, Secret{Kind: SecretSolution, File: slash, Line: bl.line, Go: true, Text: bl.text, Stub: bl.stub})
			}
		case strings.HasSuffix(slash, ".cu") && exerciseDir.MatchString(slash) && HasSolution(b):
			blocks, err := solutionBlocks(slash, string(b), nil)
			if err != nil {
				return nil, err
			}
			for _, bl := range blocks {
				out = append(out, Secret{Kind: SecretSolution, File: slash, Line: bl.line, Text: bl.text, Stub: bl.stub})
			}
		case strings.HasSuffix(slash, ".ipynb"):
			s, err := notebookSecrets(slash, b)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		}
	}
	var stubs strings.Builder
	for _, s := range out {
		if s.Kind == SecretSolution {
			stubs.WriteString(s.Stub)
		}
	}
	for i := range out {
		if out[i].Kind == SecretHidden {
			out[i].Stub = stubs.String()
		}
	}
	return out, nil
}

// block is the text between two marker lines and the number of its first
// line.
type block struct {
	line int
	text string
	stub string // the stub after it, uncommented
}

// solutionBlocks returns the text of every solution block of src and of
// the stub after it; when eligible is not nil only the lines it holds can
// be markers.
func solutionBlocks(name, src string, eligible map[int]bool) ([]block, error) {
	var out []block
	var cur *block
	inStub := false
	for n, line := range strings.Split(src, "\n") {
		trim := strings.TrimSpace(line)
		if eligible != nil && !eligible[n+1] {
			trim = ""
		}
		switch {
		case inStub && trim == EndStub:
			inStub = false
		case inStub:
			out[len(out)-1].stub += uncomment(line) + "\n"
		case cur == nil && isMarker(trim, BeginStub) && len(out) > 0:
			inStub = true
		case cur == nil && trim == BeginSolution:
			cur = &block{line: n + 2}
		case cur != nil && trim == EndSolution:
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("release: %s:%d: %q has no %q: %w", name, cur.line-1, BeginSolution, EndSolution, ErrMarkers)
	}
	return out, nil
}

// nbSource is a notebook cell as the scan reads it.
type nbSource struct {
	CellType string          `json:"cell_type"`
	ID       string          `json:"id"`
	Source   json.RawMessage `json:"source"`
	Metadata struct {
		Tags []string `json:"tags"`
	} `json:"metadata"`
}

// readCells returns the cells of a notebook.
func readCells(name string, src []byte) ([]nbSource, error) {
	var nb struct {
		Cells []nbSource `json:"cells"`
	}
	if err := json.Unmarshal(src, &nb); err != nil {
		return nil, fmt.Errorf("release: %s: not a notebook: %w", name, err)
	}
	return nb.Cells, nil
}

// cellName returns a cell's id, or its index when it has none.
func cellName(c nbSource, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("#%d", i)
}

// notebookSecrets returns the solution blocks of a notebook's code cells
// and its answer cells.
func notebookSecrets(name string, src []byte) ([]Secret, error) {
	cells, err := readCells(name, src)
	if err != nil {
		return nil, err
	}
	var out []Secret
	for i, c := range cells {
		text, err := nbformat.CellSource(c.Source)
		if err != nil {
			return nil, fmt.Errorf("release: %s cell %d: %w", name, i, err)
		}
		if slices.Contains(c.Metadata.Tags, AnswerTag) {
			out = append(out, Secret{Kind: SecretAnswer, File: name, Cell: cellName(c, i), Line: 1, Text: text})
			continue
		}
		if c.CellType != "code" || !HasSolution([]byte(text)) {
			continue
		}
		blocks, err := solutionBlocks(fmt.Sprintf("%s cell %d", name, i), text, nil)
		if err != nil {
			return nil, err
		}
		for _, bl := range blocks {
			out = append(out, Secret{Kind: SecretSolution, File: name, Cell: cellName(c, i), Line: bl.line, Go: true, Text: bl.text, Stub: bl.stub})
		}
	}
	return out, nil
}

// Finding is a secret found in a file of the scanned tree.
type Finding struct {
	Secret  Secret
	File    string // the file that holds it, relative to the scanned root
	Cell    string // the notebook cell, or ""
	Line    int    // the first matching line there
	How     string // "lines" or "tokens"
	Matched int    // lines or fingerprints found
	Of      int    // the secret's non-trivial lines or fingerprints
	Sample  string // the first line found, whitespace collapsed
}

// String says where the secret was found and how much of it.
func (f Finding) String() string {
	unit := "non-trivial lines"
	if f.How == "tokens" {
		unit = "token fingerprints (identifiers renamed)"
	}
	return fmt.Sprintf("%s holds %d of the %d %s of the %s at %s: %q",
		where(f.File, f.Cell, f.Line), f.Matched, f.Of, unit, f.Secret.Kind, f.Secret.Where(), f.Sample)
}

// Thresholds of a finding.
const (
	// KGram is the length in tokens of a fingerprinted k-gram.
	KGram = 20
	// Winnow is the winnowing window, in k-grams: every shared run of at
	// least KGram+Winnow−1 tokens shares a fingerprint.
	Winnow = 5
	// minLineTokens is the fewest tokens of a non-trivial line.
	minLineTokens = 5
)

// MinShare is the share of a secret's non-trivial lines, or of its
// fingerprints, that one file must hold for a finding.
const MinShare = 0.5

// MinSecretTokens is the fewest tokens, over its non-trivial lines not in
// its stub, of a secret the scan looks for: a shorter one cannot be told
// from ordinary code (an answer that is one formula, a fix of one line in
// a file that the stub otherwise gives).
const MinSecretTokens = 30

// prepared is a secret ready to be searched for: what it holds that its
// stub does not.
type prepared struct {
	s        Secret
	lines    map[string]int // non-trivial line → its line number in the secret
	tokens   int            // tokens of those lines
	goPrints map[uint64]bool
	cPrints  map[uint64]bool
}

func prepare(s Secret) prepared {
	p := prepared{s: s, lines: map[string]int{}}
	public := map[string]bool{}
	for _, line := range strings.Split(s.Stub, "\n") {
		public[strings.Join(strings.Fields(line), " ")] = true
	}
	for n, line := range strings.Split(s.Text, "\n") {
		if norm, ok := nonTrivial(line); ok && !public[norm] {
			if _, seen := p.lines[norm]; !seen {
				p.lines[norm] = n + 1
				p.tokens += len(cTokens(norm))
			}
		}
	}
	if s.Go {
		p.goPrints = minus(printSet(winnow(goTokens(s.Text))), allPrints(goTokens(s.Stub)))
	}
	p.cPrints = minus(printSet(winnow(cTokens(s.Text))), allPrints(cTokens(s.Stub)))
	return p
}

// TooShort reports whether a secret is below MinSecretTokens, which the
// scan does not look for.
func TooShort(s Secret) bool { return prepare(s).tokens < MinSecretTokens }

// allPrints returns the hash of every k-gram of toks, not only the
// winnowed ones: a secret's fingerprint is public when any k-gram of its
// stub has it.
func allPrints(toks []tok) map[uint64]bool { return winnowing.AllHashes(toks, KGram) }

// minus returns a without the keys of b.
func minus(a, b map[uint64]bool) map[uint64]bool {
	for k := range b {
		delete(a, k)
	}
	return a
}

// trivialLines are lines too common to say anything, even with enough
// tokens.
var trivialLines = map[string]bool{
	"if err != nil {": true, "return nil, err": true, "return 0, err": true, "} else {": true,
	"return nil, nil, err": true, "return 0, \"\", err": true,
}

// nonTrivial returns a line with its whitespace collapsed, and whether it
// says enough to count: not blank, not a comment or a marker, at least
// minLineTokens tokens, not a common line of error handling.
func nonTrivial(line string) (string, bool) {
	norm := strings.Join(strings.Fields(line), " ")
	switch {
	case norm == "", strings.HasPrefix(norm, "//"), strings.HasPrefix(norm, "/*"), strings.HasPrefix(norm, "*"),
		strings.HasPrefix(norm, "#") && !strings.HasPrefix(norm, "#define"):
		return norm, false
	case trivialLines[norm]:
		return norm, false
	}
	return norm, len(cTokens(norm)) >= minLineTokens
}

// The tokenizers and the winnowing live in package winnowing, shared
// with the grader's similarity report; these names keep the scan short.

// tok is a normalised token and its line.
type tok = winnowing.Token

// fingerprint is a k-gram's hash and the line of its first token.
type fingerprint = winnowing.Print

// goTokens returns the tokens of Go source (winnowing.GoTokens).
func goTokens(src string) []tok { return winnowing.GoTokens(src) }

// cTokens returns the tokens of C-like text (winnowing.CTokens).
func cTokens(src string) []tok { return winnowing.CTokens(src) }

// kgramHash hashes toks with identifiers renamed (winnowing.KGramHash).
func kgramHash(toks []tok) uint64 { return winnowing.KGramHash(toks) }

// winnow returns the fingerprints of toks with the scan's k-gram and
// window.
func winnow(toks []tok) []fingerprint { return winnowing.Winnow(toks, KGram, Winnow) }

// printSet returns the set of the fingerprints' hashes.
func printSet(ps []fingerprint) map[uint64]bool { return winnowing.PrintSet(ps) }

// text is a searchable piece of a file: the file itself, or a notebook
// cell.
type text struct {
	cell string
	src  string
	goOK bool // Go source: tokenised by go/scanner as well
}

// readTexts returns the searchable pieces of a file, or nothing for a
// binary file.
func readTexts(rel string, b []byte) []text {
	if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 || !utf8.Valid(b) {
		return nil
	}
	if strings.HasSuffix(rel, ".ipynb") {
		if cells, err := readCells(rel, b); err == nil {
			var out []text
			for i, c := range cells {
				if src, err := nbformat.CellSource(c.Source); err == nil {
					out = append(out, text{cell: cellName(c, i), src: src, goOK: c.CellType == "code"})
				}
			}
			return out
		}
	}
	return []text{{src: string(b), goOK: strings.HasSuffix(rel, ".go")}}
}

// Scan searches every file under root (a students' copy) for the secrets
// and returns what it finds, sorted by file and line: for each secret and
// file, the stronger of the line and the token finding, where the file
// holds at least MinShare of the secret.
func Scan(root string, secrets []Secret) ([]Finding, error) { return ScanAt(root, secrets, MinShare) }

// ScanAt is Scan with another least share (0 < share ≤ 1) of a secret
// that makes a finding: a lower one shows what comes close.
func ScanAt(root string, secrets []Secret, share float64) ([]Finding, error) {
	if !(share > 0 && share <= 1) {
		return nil, fmt.Errorf("release: scan with a least share of %g: it must be in (0, 1]", share)
	}
	ps := make([]prepared, len(secrets))
	for i, s := range secrets {
		ps[i] = prepare(s)
	}
	var out []Finding
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, t := range readTexts(filepath.ToSlash(rel), b) {
			out = append(out, scanText(filepath.ToSlash(rel), t, ps, share)...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("release: scan %s: %w", root, err)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Cell != b.Cell {
			return a.Cell < b.Cell
		}
		return a.Line < b.Line
	})
	return out, nil
}

// scanText returns the findings of the secrets in one piece of a file.
func scanText(file string, t text, ps []prepared, minShare float64) []Finding {
	lineAt := map[string]int{}
	for n, line := range strings.Split(t.src, "\n") {
		norm := strings.Join(strings.Fields(line), " ")
		if _, seen := lineAt[norm]; !seen {
			lineAt[norm] = n + 1
		}
	}
	cPrints := winnow(cTokens(t.src))
	var goPrints []fingerprint
	if t.goOK {
		goPrints = winnow(goTokens(t.src))
	}
	var out []Finding
	for _, p := range ps {
		if p.tokens < MinSecretTokens {
			continue
		}
		best := Finding{}
		// lines
		found, first, sample := 0, 0, ""
		for norm := range p.lines {
			if n, ok := lineAt[norm]; ok {
				found++
				if first == 0 || n < first {
					first, sample = n, norm
				}
			}
		}
		if of := len(p.lines); found > 0 && (float64(found) >= minShare*float64(of)) {
			best = Finding{How: "lines", Matched: found, Of: of, Line: first, Sample: sample}
		}
		// tokens
		for _, side := range []struct {
			prints []fingerprint
			set    map[uint64]bool
		}{{goPrints, p.goPrints}, {cPrints, p.cPrints}} {
			if len(side.set) == 0 {
				continue
			}
			shared := map[uint64]bool{}
			firstLine := 0
			for _, fp := range side.prints {
				if side.set[fp.Hash] {
					if !shared[fp.Hash] && (firstLine == 0 || fp.Line < firstLine) {
						firstLine = fp.Line
					}
					shared[fp.Hash] = true
				}
			}
			of := len(side.set)
			share := float64(len(shared)) / float64(of)
			if len(shared) > 0 && share >= minShare && (best.Of == 0 || share > float64(best.Matched)/float64(best.Of)) {
				best = Finding{How: "tokens", Matched: len(shared), Of: of, Line: firstLine, Sample: lineOf(t.src, firstLine)}
			}
		}
		if best.Of > 0 {
			best.Secret, best.File, best.Cell = p.s, file, t.cell
			out = append(out, best)
		}
	}
	return out
}

// lineOf returns line n of src, whitespace collapsed.
func lineOf(src string, n int) string {
	lines := strings.Split(src, "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.Join(strings.Fields(lines[n-1]), " ")
}
