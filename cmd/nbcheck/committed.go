package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"stencillab.dev/internal/nbformat"
)

// The committed notebooks carry the outputs of a run on a machine without
// a GPU, so that the repository's web page shows their figures. Their
// metadata records which code produced those outputs:
//
//	"metadata": {"stencillab": {"outputs_of": "<sha256 of the code cells>"}}
//
// Stamp writes that record into a freshly executed notebook before it
// replaces the committed one; CompareCommitted checks a committed notebook
// against a fresh run of it.

// CodeHash is the SHA-256, in hex, of the sources of a notebook's code
// cells in order, each followed by a NUL byte.
func CodeHash(cells []cell) string {
	h := sha256.New()
	for _, c := range cells {
		if c.CellType != "code" {
			continue
		}
		h.Write([]byte(c.Source))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Stamp records in the notebook at path the hash of its code cells, as
// metadata.stencillab.outputs_of, leaves metadata.language_info as the
// kernel reported it, and rewrites the file in nbformat's own layout (keys
// sorted, one space of indentation).
func Stamp(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("stamp: %w", err)
	}
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return fmt.Errorf("stamp %s: not a notebook: %w", path, err)
	}
	var raw map[string]any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&raw); err != nil {
		return fmt.Errorf("stamp %s: %w", path, err)
	}
	meta, _ := raw["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		raw["metadata"] = meta
	}
	lab, _ := meta["stencillab"].(map[string]any)
	if lab == nil {
		lab = map[string]any{}
		meta["stencillab"] = lab
	}
	lab["outputs_of"] = CodeHash(nb.Cells)
	// language_info stays as the kernel reported it: Jupyter Notebook
	// compares it with the running kernel's when it opens the notebook and
	// marks the notebook changed on any difference (a lexer named here
	// that the kernel leaves empty did so on every open).
	b, err := nbformat.Encode(raw)
	if err != nil {
		return fmt.Errorf("stamp %s: %w", path, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("stamp: %w", err)
	}
	return nil
}

// outputKind is what a code cell's output is, without its content: the
// output type and its MIME types, or the stream's name.
func outputKind(o output) string {
	switch o.OutputType {
	case "stream":
		return "stream:" + o.Name
	case "display_data", "execute_result":
		var mimes []string
		for m := range o.Data {
			mimes = append(mimes, m)
		}
		sort.Strings(mimes)
		return o.OutputType + ":" + strings.Join(mimes, ",")
	}
	return o.OutputType
}

// outputKinds lists the kinds of a cell's outputs, with consecutive
// outputs of one stream counted once: how a program's printing is split
// into messages depends on timing.
func outputKinds(c cell) []string {
	var kinds []string
	for _, o := range c.Outputs {
		k := outputKind(o)
		if strings.HasPrefix(k, "stream:") && len(kinds) > 0 && kinds[len(kinds)-1] == k {
			continue
		}
		kinds = append(kinds, k)
	}
	return kinds
}

// cellImages counts the images of a cell's outputs.
func cellImages(c cell) int {
	n := 0
	for _, o := range c.Outputs {
		if o.OutputType == "display_data" || o.OutputType == "execute_result" {
			k, _ := images(o.Data)
			n += k
		}
	}
	return n
}

// CompareCommitted checks the committed notebook (committed, read from
// path) against a fresh run of it (fresh): the committed outputs must have
// been produced by its code as it stands (the recorded hash matches), its
// code cells must be those of the fresh run, and each code cell's outputs
// must be of the same kinds, in the same order, with as many images. Text
// and pictures may differ: timings do.
func CompareCommitted(path string, committed, fresh []byte) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var c, f notebook
	if err := json.Unmarshal(committed, &c); err != nil {
		return []string{fmt.Sprintf("committed %s: not a notebook: %v", path, err)}
	}
	if err := json.Unmarshal(fresh, &f); err != nil {
		return []string{fmt.Sprintf("fresh run: not a notebook: %v", err)}
	}
	hash := CodeHash(c.Cells)
	switch got := c.Metadata.StencilLab.OutputsOf; {
	case got == "":
		fail("committed %s records no outputs (metadata stencillab.outputs_of): run make notebooks", path)
	case got != hash:
		fail("committed %s: its code changed since its outputs were made: run make notebooks", path)
	}
	cc, fc := codeCells(c.Cells), codeCells(f.Cells)
	if len(cc) != len(fc) {
		fail("committed %s has %d code cells, the fresh run %d", path, len(cc), len(fc))
		return problems
	}
	for i := range cc {
		where := fmt.Sprintf("code cell %d", i+1)
		if cc[i].ID != "" {
			where += fmt.Sprintf(" (id %s)", cc[i].ID)
		}
		if cc[i].Source != fc[i].Source {
			fail("%s: committed code differs from the fresh run's", where)
			continue
		}
		for _, o := range cc[i].Outputs {
			if h, ok := o.Data["text/html"]; ok && (imgTag.MatchString(string(h)) || svgTag.MatchString(string(h))) {
				fail("%s: a picture inside text/html, which GitHub's notebook view may not show: display it as image/png", where)
			}
		}
		ck, fk := outputKinds(cc[i]), outputKinds(fc[i])
		if strings.Join(ck, " ") != strings.Join(fk, " ") {
			fail("%s: committed outputs [%s], fresh run [%s]: run make notebooks", where, strings.Join(ck, " "), strings.Join(fk, " "))
		}
		if ci, fi := cellImages(cc[i]), cellImages(fc[i]); ci != fi {
			fail("%s: committed %s, fresh run %s: run make notebooks", where, plural(ci, "image"), plural(fi, "image"))
		}
	}
	return problems
}

func codeCells(cells []cell) []cell {
	var out []cell
	for _, c := range cells {
		if c.CellType == "code" {
			out = append(out, c)
		}
	}
	return out
}

// CheckCommitted compares the committed copy of an executed notebook, the
// file of the same name in dir, with the executed one.
func CheckCommitted(r *Report, dir, executed string) {
	fresh, err := os.ReadFile(executed)
	if err != nil {
		return // CheckFile has reported it
	}
	path := filepath.Join(dir, filepath.Base(executed))
	committed, err := os.ReadFile(path)
	if err != nil {
		r.fail("committed copy: %v", err)
		return
	}
	// Named by its folder and file only, as in the repository.
	name := filepath.Join(filepath.Base(dir), filepath.Base(executed))
	for _, p := range CompareCommitted(name, committed, fresh) {
		r.fail("%s", p)
	}
}
