package predict

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// numberRe finds a number in prose, code or output: digits, possibly
// grouped by threes with a space, a no-break space, a thin space or a
// comma, and a decimal part. A number glued to a letter, a digit or an
// underscore before it (float64, H200, q1) is a name, not a number.
var numberRe = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_.])(\d{1,3}(?:[ \x{00a0}\x{202f}\x{2009},]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)`)

// groupSep are the characters that group a number's digits by threes.
var groupSep = strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "", "\u2009", "", ",", "")

// Leak is a rendering of an answer found in a text.
type Leak struct {
	Text string // the number or form as the text writes it
	At   int    // its byte offset in the text
}

// AnswerLeaks returns the places where text shows the answer want of q,
// which its check accepts within tol: a number of at least minDigits
// significant digits that is want rounded to its own decimals and lies
// within tol of want, or one of q's Forms.
func AnswerLeaks(text string, q Question, want, tol float64, minDigits int) []Leak {
	var leaks []Leak
	norm := strings.NewReplacer("\u00a0", " ", "\u202f", " ", "\u2009", " ").Replace(text)
	for _, f := range q.Forms {
		f = strings.NewReplacer("\u00a0", " ", "\u202f", " ", "\u2009", " ").Replace(f)
		if f == "" {
			continue
		}
		for from := 0; ; {
			i := strings.Index(norm[from:], f)
			if i < 0 {
				break
			}
			i += from
			// "4³" is not a form of the answer inside "24³".
			if before, _ := utf8.DecodeLastRuneInString(norm[:i]); i == 0 || !unicode.IsDigit(before) && !unicode.IsLetter(before) {
				leaks = append(leaks, Leak{Text: f, At: i})
				break
			}
			from = i + len(f)
		}
	}
	for _, m := range numberRe.FindAllStringSubmatchIndex(text, -1) {
		raw := text[m[2]:m[3]]
		// A number joined to a word by a hyphen is part of a name:
		// 64-bit, 7-point.
		if rest := text[m[3]:]; len(rest) > 1 && rest[0] == '-' && unicode.IsLetter(rune(rest[1])) {
			continue
		}
		leaks = appendNumberLeak(leaks, raw, m[2], want, tol, minDigits)
		// A grouped number may also be two numbers ("N = 512 256"): its
		// first group alone is tried too.
		if i := strings.IndexAny(raw, " \u00a0\u202f\u2009,"); i > 0 {
			leaks = appendNumberLeak(leaks, raw[:i], m[2], want, tol, minDigits)
		}
	}
	return leaks
}

// appendNumberLeak appends raw when it is a rendering of want.
func appendNumberLeak(leaks []Leak, raw string, at int, want, tol float64, minDigits int) []Leak {
	digits := groupSep.Replace(raw)
	x, err := strconv.ParseFloat(digits, 64)
	if err != nil || significant(digits) < minDigits {
		return leaks
	}
	places := 0
	if i := strings.IndexByte(digits, '.'); i >= 0 {
		places = len(digits) - i - 1
	}
	p := math.Pow(10, float64(places))
	rounded := math.Round(want*p) / p
	if math.Abs(x-want) <= tol+1e-12 && math.Abs(x-rounded) <= 1e-9*math.Max(1, math.Abs(x)) {
		return append(leaks, Leak{Text: raw, At: at})
	}
	return leaks
}

// significant counts the significant digits of a decimal number written
// without grouping: 0.046 has 2, 8000 has 4.
func significant(s string) int {
	s = strings.Replace(s, ".", "", 1)
	s = strings.TrimLeft(s, "0")
	return len(s)
}
