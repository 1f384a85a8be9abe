package gpu

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The preprocessor directives a source compiled from text may use: macros,
// conditions and the unrolling pragma. Everything else (#include,
// #include_next, #import, #embed, #line and the line markers "# 12 file",
// #error, #warning, #ident, every other #pragma) is refused before NVRTC
// sees the text, and so are the operators that reach files or pragmas from
// inside an expression or a macro (__has_include, __has_include_next,
// _Pragma, __pragma). Nothing but the submitted text reaches the compiler.
var allowedDirectives = map[string]bool{
	"define": true, "undef": true,
	"if": true, "ifdef": true, "ifndef": true, "elif": true, "else": true, "endif": true,
}

// allowedPragmas are the first words a #pragma may have.
var allowedPragmas = map[string]bool{"unroll": true, "nounroll": true}

// refusedWords are identifiers refused anywhere in a source.
var refusedWords = map[string]string{
	"__has_include":      "__has_include looks for files",
	"__has_include_next": "__has_include_next looks for files",
	"_Pragma":            "_Pragma makes a pragma from a macro",
	"__pragma":           "__pragma makes a pragma from a macro",
}

// DirectivesAllowed is the allow-list, for messages.
const DirectivesAllowed = "#define, #undef, #if, #ifdef, #ifndef, #elif, #else, #endif and #pragma unroll"

// maxDirectiveErrors bounds the lines one error names.
const maxDirectiveErrors = 8

// CheckDirectives returns an error naming each line ("basic.cu:3: …") of
// text that uses a preprocessor directive or operator outside the
// allow-list, or holds a NUL byte or a control character, or is not UTF-8;
// nil when the text may be compiled. It reads the text as the preprocessor
// does: lines joined by a backslash before the newline, comments, string
// and character literals (raw strings included), and the digraph %: for #.
func CheckDirectives(file, text string) error {
	var errs []string
	add := func(line int, format string, a ...any) {
		if len(errs) < maxDirectiveErrors {
			errs = append(errs, fmt.Sprintf("%s:%d: %s", file, line, fmt.Sprintf(format, a...)))
		}
	}
	if !utf8.ValidString(text) {
		add(1+strings.Count(text[:invalidUTF8(text)], "\n"), "the file is not UTF-8 text")
		return directiveError(errs)
	}
	for i, r := range text {
		if r == 0 || (r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != '\f' && r != '\v') || r == 0x7f {
			add(1+strings.Count(text[:i], "\n"), "control character %U is not allowed in a source", r)
			return directiveError(errs)
		}
	}
	l := lexer{src: text}
	lineStart := true
	for {
		tok, line := l.next()
		switch tok.kind {
		case tokEOF:
			return directiveError(errs)
		case tokNewline:
			lineStart = true
			continue
		case tokPunct:
			if lineStart && (tok.text == "#" || tok.text == "%:") {
				checkDirective(&l, line, add)
				lineStart = true // checkDirective stops at the end of the line
				continue
			}
		case tokIdent:
			if why, bad := refusedWords[tok.text]; bad {
				add(line, "%s is not allowed: %s; the file must hold everything it needs", tok.text, why)
			}
		case tokBad:
			add(line, "%s", tok.text)
			return directiveError(errs)
		}
		lineStart = false
	}
}

// checkDirective reads the directive after its # on line and reports it
// when it is not allowed; it consumes the line.
func checkDirective(l *lexer, line int, add func(int, string, ...any)) {
	name, _ := l.next()
	switch {
	case name.kind == tokNewline || name.kind == tokEOF:
		return // the null directive
	case name.kind != tokIdent:
		add(line, "the directive \"# %s\" is not allowed (allowed: %s)", name.text, DirectivesAllowed)
	case name.text == "pragma":
		arg, _ := l.next()
		if arg.kind != tokIdent || !allowedPragmas[arg.text] {
			add(line, "#pragma %s is not allowed: only #pragma unroll is (allowed: %s)", arg.text, DirectivesAllowed)
		}
	case !allowedDirectives[name.text]:
		add(line, "#%s is not allowed: the file must hold everything it needs (allowed: %s)", name.text, DirectivesAllowed)
	}
	// The rest of the line: identifiers are still checked.
	for {
		tok, tl := l.next()
		switch tok.kind {
		case tokNewline, tokEOF:
			return
		case tokIdent:
			if why, bad := refusedWords[tok.text]; bad {
				add(tl, "%s is not allowed: %s; the file must hold everything it needs", tok.text, why)
			}
		case tokBad:
			add(tl, "%s", tok.text)
		}
	}
}

// DirectiveError is the error of a source refused before compilation:
// one line per place ("basic.cu:3: #include is not allowed …").
type DirectiveError struct {
	Lines []string
}

// Error returns the lines.
func (e *DirectiveError) Error() string { return strings.Join(e.Lines, "\n") }

func directiveError(errs []string) error {
	if len(errs) == 0 {
		return nil
	}
	return &DirectiveError{Lines: errs}
}

// invalidUTF8 returns the offset of the first byte of s that is not UTF-8.
func invalidUTF8(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(s)
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokNewline
	tokIdent
	tokPunct
	tokOther // numbers, literals
	tokBad
)

type token struct {
	kind tokKind
	text string
}

// lexer splits a source into the preprocessor's tokens, as far as the
// directive check needs: identifiers, # and %:, newlines (not those
// escaped by a backslash; a comment with a newline in it counts as one),
// and the rest. The source holds no NUL byte (CheckDirectives refuses it
// first), so 0 stands for the end.
type lexer struct {
	src string
	pos int
	nls []int // offsets of the newlines
}

// at returns the byte at p after line splices (a backslash before a
// newline), and the offset just past it; 0 at the end.
func (l *lexer) at(p int) (byte, int) {
	for p < len(l.src) && l.src[p] == '\\' {
		q := p + 1
		if q < len(l.src) && l.src[q] == '\r' {
			q++
		}
		if q < len(l.src) && l.src[q] == '\n' {
			p = q + 1
			continue
		}
		break
	}
	if p >= len(l.src) {
		return 0, len(l.src)
	}
	return l.src[p], p + 1
}

// look returns the byte at p after splices.
func (l *lexer) look(p int) byte {
	c, _ := l.at(p)
	return c
}

// lineOf returns the line of offset p, from 1.
func (l *lexer) lineOf(p int) int {
	if l.nls == nil {
		l.nls = []int{}
		for i := 0; i < len(l.src); i++ {
			if l.src[i] == '\n' {
				l.nls = append(l.nls, i)
			}
		}
	}
	lo, hi := 0, len(l.nls)
	for lo < hi {
		m := (lo + hi) / 2
		if l.nls[m] < p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo + 1
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
}

func isIdent(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// next returns the next token and the line it starts on.
func (l *lexer) next() (token, int) {
	for {
		c, p := l.at(l.pos)
		line := l.lineOf(p - 1)
		switch {
		case c == 0:
			l.pos = p
			return token{kind: tokEOF}, line
		case c == '\n':
			l.pos = p
			return token{kind: tokNewline}, line
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.pos = p
		case c == '/' && l.look(p) == '/':
			// A line comment runs to the newline, splices included.
			_, q := l.at(p)
			for {
				d, r := l.at(q)
				if d == 0 || d == '\n' {
					break
				}
				q = r
			}
			l.pos = q
		case c == '/' && l.look(p) == '*':
			_, q := l.at(p)
			nl := false
			for {
				d, r := l.at(q)
				if d == 0 {
					l.pos = r
					return token{kind: tokBad, text: "a comment is not closed"}, line
				}
				if d == '\n' {
					nl = true
				}
				if d == '*' && l.look(r) == '/' {
					_, l.pos = l.at(r)
					break
				}
				q = r
			}
			if nl {
				return token{kind: tokNewline}, line
			}
		case c == '#':
			l.pos = p
			return token{kind: tokPunct, text: "#"}, line
		case c == '%' && l.look(p) == ':':
			_, l.pos = l.at(p)
			return token{kind: tokPunct, text: "%:"}, line
		case c == '"' || c == '\'':
			return l.literal(c, p, line)
		case isIdentStart(c):
			var sb strings.Builder
			sb.WriteByte(c)
			q := p
			for {
				d, r := l.at(q)
				if !isIdent(d) {
					break
				}
				sb.WriteByte(d)
				q = r
			}
			l.pos = q
			id := sb.String()
			// Raw string literals: R"delim( … )delim", with a prefix.
			if (id == "R" || id == "u8R" || id == "uR" || id == "UR" || id == "LR") && l.look(q) == '"' {
				return l.raw(q, line)
			}
			// Encoding prefixes of ordinary literals: u8"…", L'…'.
			if (id == "u8" || id == "u" || id == "U" || id == "L") && (l.look(q) == '"' || l.look(q) == '\'') {
				d, r := l.at(q)
				return l.literal(d, r, line)
			}
			return token{kind: tokIdent, text: id}, line
		case c >= '0' && c <= '9' || c == '.' && l.look(p) >= '0' && l.look(p) <= '9':
			// A pp-number: digits, letters, dots, digit separators and
			// signed exponents.
			q := p
			prev := c
			for {
				d, r := l.at(q)
				if isIdent(d) || d == '.' || (d == '\'' && isIdent(l.look(r))) || ((d == '+' || d == '-') && (prev|0x20 == 'e' || prev|0x20 == 'p')) {
					prev = d
					q = r
					continue
				}
				break
			}
			l.pos = q
			return token{kind: tokOther, text: l.src[p-1 : q]}, line
		default:
			l.pos = p
			return token{kind: tokPunct, text: string(c)}, line
		}
	}
}

// literal skips a string or character literal opened by quote, whose body
// starts at p.
func (l *lexer) literal(quote byte, p, line int) (token, int) {
	q := p
	for {
		d, r := l.at(q)
		switch {
		case d == 0, d == '\n':
			l.pos = q
			return token{kind: tokBad, text: "a string or character literal is not closed on its line"}, line
		case d == '\\':
			_, r = l.at(r)
		case d == quote:
			l.pos = r
			return token{kind: tokOther}, line
		}
		q = r
	}
}

// raw skips a raw string literal whose opening quote is at p (line splices
// do not apply inside it).
func (l *lexer) raw(p, line int) (token, int) {
	_, q := l.at(p) // past the quote
	open := strings.IndexByte(l.src[q:], '(')
	if open < 0 || open > 16 || strings.ContainsAny(l.src[q:q+open], " \\)\t\n\"") {
		l.pos = q
		return token{kind: tokBad, text: "a raw string literal has no valid delimiter"}, line
	}
	delim := ")" + l.src[q:q+open] + "\""
	end := strings.Index(l.src[q+open+1:], delim)
	if end < 0 {
		l.pos = len(l.src)
		return token{kind: tokBad, text: "a raw string literal is not closed"}, line
	}
	l.pos = q + open + 1 + end + len(delim)
	return token{kind: tokOther}, line
}
