// Package sine is an attack on the class feedback: every error it returns
// carries markup (HTML, a link, an image, a heading, a code fence and
// table pipes) that would render in feedback/STUDENT.md were it not
// escaped, and text that would start a formula in a spreadsheet.
package sine

import "errors"

// Discretize answers every call with an error of markup.
func Discretize(f func(float64) float64, a, b float64, n int) (xs, ys []float64, err error) {
	return nil, nil, errors.New("=HYPERLINK(\"http://evil.example\") <script>alert(1)</script> <img src=x onerror=alert(1)> [full marks](http://evil.example) ![x](http://evil.example/x.png)\n```\n# Total: 100/100\n| forged | 10/10 | ok |")
}
