package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // decode JPEG outputs
	_ "image/png"  // decode PNG outputs
	"io"
	"net/url"
	"os"
	"regexp"
	"strings"
)

// Report is the verdict on one notebook.
type Report struct {
	Path      string
	CodeCells int      // code cells in the notebook
	Images    int      // images found in the outputs
	MinImages int      // images the notebook must show
	Problems  []string // what is wrong, one sentence each; empty when the notebook passes
}

// OK reports whether the notebook passed.
func (r Report) OK() bool { return len(r.Problems) == 0 }

// String formats the report as one line.
func (r Report) String() string {
	if r.OK() {
		return fmt.Sprintf("ok   %s: %d code cells, %s (at least %d)", r.Path, r.CodeCells, plural(r.Images, "image"), r.MinImages)
	}
	return fmt.Sprintf("FAIL %s: %s", r.Path, strings.Join(r.Problems, "; "))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func (r *Report) fail(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// notebook is the part of nbformat 4 that nbcheck reads.
type notebook struct {
	NBFormat int `json:"nbformat"`
	Metadata struct {
		StencilLab struct {
			MinImages *int   `json:"min_images"`
			OutputsOf string `json:"outputs_of"`
		} `json:"stencillab"`
	} `json:"metadata"`
	Cells []cell `json:"cells"`
}

type cell struct {
	ID             string    `json:"id"`
	CellType       string    `json:"cell_type"`
	Source         multiline `json:"source"`
	ExecutionCount *int      `json:"execution_count"`
	Outputs        []output  `json:"outputs"`
	Metadata       struct {
		Tags       []string  `json:"tags"`
		RevealedBy *[]string `json:"revealed_by"` // the cells that show a question's answer (order.go)
	} `json:"metadata"`
}

type output struct {
	OutputType string               `json:"output_type"`
	Name       string               `json:"name"`
	EName      string               `json:"ename"`
	EValue     string               `json:"evalue"`
	Data       map[string]multiline `json:"data"`
}

// multiline is a notebook string, stored either as one string or as a list
// of strings to be joined.
type multiline string

// UnmarshalJSON accepts a string or a list of strings.
func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var parts []string
	if err := json.Unmarshal(b, &parts); err != nil {
		// Data of other MIME types (application/json) may be any JSON
		// value; nbcheck does not read those.
		*m = ""
		return nil
	}
	*m = multiline(strings.Join(parts, ""))
	return nil
}

// CheckFile reads and checks one executed notebook. minImages ≥ 0
// overrides the notebook's own declaration.
func CheckFile(path string, minImages int) Report {
	data, err := os.ReadFile(path)
	if err != nil {
		r := Report{Path: path}
		if errors.Is(err, os.ErrNotExist) {
			r.fail("no executed notebook at %s (did its execution fail?)", path)
		} else {
			r.fail("read: %v", err)
		}
		return r
	}
	return Check(path, data, minImages)
}

// Check checks the executed notebook data, read from path. minImages ≥ 0
// overrides the notebook's own declaration.
func Check(path string, data []byte, minImages int) Report {
	r := Report{Path: path}
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		r.fail("not a notebook: %v", err)
		return r
	}
	if nb.NBFormat != 4 {
		r.fail("nbformat %d, want 4", nb.NBFormat)
		return r
	}
	r.MinImages = minImages
	if minImages < 0 {
		r.MinImages = 0
		if m := nb.Metadata.StencilLab.MinImages; m != nil {
			if *m < 0 {
				r.fail("metadata stencillab.min_images = %d is negative", *m)
			}
			r.MinImages = *m
		}
	}
	for n, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		r.CodeCells++
		where := fmt.Sprintf("cell %d", n+1)
		if c.ID != "" {
			where += fmt.Sprintf(" (id %s)", c.ID)
		}
		if strings.TrimSpace(string(c.Source)) != "" && c.ExecutionCount == nil {
			r.fail("%s did not run", where)
		}
		for _, o := range c.Outputs {
			if o.OutputType == "error" {
				r.fail("%s: error %s: %s", where, o.EName, firstLine(o.EValue))
				continue
			}
			if o.OutputType != "display_data" && o.OutputType != "execute_result" {
				continue
			}
			n, problems := images(o.Data)
			r.Images += n
			for _, p := range problems {
				r.fail("%s: %s", where, p)
			}
		}
	}
	if r.Images < r.MinImages {
		r.fail("%s, expected at least %d", plural(r.Images, "image"), r.MinImages)
	}
	return r
}

// firstLine shortens an error message to its first informative line,
// skipping the "# package" header that go build prints, and marks with an
// ellipsis that more followed.
func firstLine(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > 1 && strings.HasPrefix(lines[0], "# ") {
		lines = lines[1:]
	}
	if len(lines) == 0 {
		return ""
	}
	out := lines[0]
	if len(out) > 160 {
		out = out[:160] + " …"
	} else if len(lines) > 1 {
		out += " …"
	}
	return out
}

var (
	imgTag = regexp.MustCompile(`(?is)<img\b[^>]*>`)
	imgSrc = regexp.MustCompile(`(?is)\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)')`)
	svgTag = regexp.MustCompile(`(?is)<svg\b.*?</svg\s*>`)
)

// images counts the images of one output's MIME bundle and says which are
// blank or unreadable. Image MIME types in one bundle are representations
// of the same picture and count once; otherwise every <img> and <svg> of
// the HTML counts.
func images(data map[string]multiline) (int, []string) {
	var problems []string
	found := false
	for _, mime := range []string{"image/png", "image/jpeg"} {
		if v, ok := data[mime]; ok {
			found = true
			b, err := base64.StdEncoding.DecodeString(stripSpace(string(v)))
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: bad base64: %v", mime, err))
				continue
			}
			if err := checkRaster(b); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", mime, err))
			}
		}
	}
	if v, ok := data["image/svg+xml"]; ok {
		found = true
		if err := checkSVG([]byte(v)); err != nil {
			problems = append(problems, fmt.Sprintf("image/svg+xml: %v", err))
		}
	}
	if found {
		return 1, problems
	}
	html, ok := data["text/html"]
	if !ok {
		return 0, nil
	}
	n := 0
	for _, tag := range imgTag.FindAllString(string(html), -1) {
		n++
		if err := checkImgTag(tag); err != nil {
			problems = append(problems, fmt.Sprintf("text/html <img>: %v", err))
		}
	}
	// An <svg> inside an <img> tag's data URI is that image, not another.
	for _, svg := range svgTag.FindAllString(imgTag.ReplaceAllString(string(html), ""), -1) {
		n++
		if err := checkSVG([]byte(svg)); err != nil {
			problems = append(problems, fmt.Sprintf("text/html <svg>: %v", err))
		}
	}
	return n, problems
}

func stripSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, s)
}

// checkImgTag checks the picture an <img> tag embeds. Only embedded data
// can be checked and shows wherever the notebook is opened, so a src that
// points elsewhere is a problem.
func checkImgTag(tag string) error {
	m := imgSrc.FindStringSubmatch(tag)
	if m == nil {
		return errors.New("no src")
	}
	src := m[1] + m[2]
	if !strings.HasPrefix(src, "data:") {
		return fmt.Errorf("src %q is not embedded data", firstLine(src))
	}
	header, payload, ok := strings.Cut(src[len("data:"):], ",")
	if !ok {
		return errors.New("data URI without a comma")
	}
	mime, params, _ := strings.Cut(header, ";")
	var b []byte
	if strings.Contains(params, "base64") {
		var err error
		if b, err = base64.StdEncoding.DecodeString(stripSpace(payload)); err != nil {
			return fmt.Errorf("bad base64: %w", err)
		}
	} else {
		s, err := url.PathUnescape(payload)
		if err != nil {
			return fmt.Errorf("bad data URI: %w", err)
		}
		b = []byte(s)
	}
	switch mime {
	case "image/png", "image/jpeg", "image/gif":
		return checkRaster(b)
	case "image/svg+xml":
		return checkSVG(b)
	}
	return fmt.Errorf("data of type %q is not an image nbcheck reads", mime)
}

// checkRaster decodes a PNG or JPEG and rejects it when every pixel has the
// same colour.
func checkRaster(b []byte) error {
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("cannot decode: %w", err)
	}
	bounds := img.Bounds()
	if bounds.Empty() {
		return errors.New("blank image: no pixels")
	}
	r0, g0, b0, a0 := img.At(bounds.Min.X, bounds.Min.Y).RGBA()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, a := img.At(x, y).RGBA()
			if r != r0 || g != g0 || b != b0 || a != a0 {
				return nil
			}
		}
	}
	return fmt.Errorf("blank image: all %d×%d pixels have one colour", bounds.Dx(), bounds.Dy())
}

// shapes are the SVG elements that put marks on the canvas.
var shapes = map[string]bool{
	"path": true, "rect": true, "circle": true, "ellipse": true, "line": true,
	"polyline": true, "polygon": true, "text": true, "image": true, "use": true,
}

// checkSVG parses an SVG drawing and rejects it when it holds fewer than
// two shapes: an empty drawing, or a background alone.
func checkSVG(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	sawSVG, n := false, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("cannot parse SVG: %w", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			switch name := strings.ToLower(se.Name.Local); {
			case name == "svg":
				sawSVG = true
			case shapes[name]:
				n++
			}
		}
	}
	if !sawSVG {
		return errors.New("no <svg> element")
	}
	if n < 2 {
		return fmt.Errorf("blank drawing: %s", plural(n, "shape"))
	}
	return nil
}
