package cudacheck

import (
	"bytes"
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
// nil when the text may be compiled.
//
// It reads the text as NVRTC's preprocessor will, after the translation
// phases 1 to 3: a carriage return, a carriage return and a newline, and a
// newline each end a line (lines are numbered so); a backslash before the
// end of a line joins the two lines; a comment is one space, and a
// directive is a line whose first token is # (or the digraph %:); string
// and character literals (raw strings included) are skipped. Where
// compilers are known to read differently, the text is read every way and
// refused when one reading finds a directive outside the allow-list: a
// comment that spans lines is also read as ending the line, and a lone
// carriage return as a space. What no reading can settle is refused: a
// trigraph (??/ is a backslash, ??= a #), a backslash followed by spaces
// before the end of a line, a backslash outside a literal that does not
// end a line (a universal character name such as \u0069 spells a letter),
// and a line splice inside a raw string literal.
func CheckDirectives(file, text string) error {
	var errs []string
	add := func(line int, format string, a ...any) {
		if len(errs) < maxDirectiveErrors {
			errs = append(errs, fmt.Sprintf("%s:%d: %s", file, line, fmt.Sprintf(format, a...)))
		}
	}
	if !utf8.ValidString(text) {
		add(lineAt(text, invalidUTF8(text)), "the file is not UTF-8 text")
		return directiveError(errs)
	}
	for i, r := range text {
		if r == 0 || (r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != '\f' && r != '\v') || r == 0x7f {
			add(lineAt(text, i), "control character %U is not allowed in a source", r)
			return directiveError(errs)
		}
	}
	if i := trigraph(text); i >= 0 {
		add(lineAt(text, i), "the trigraph %s is not allowed: write the character it stands for", text[i:i+3])
		return directiveError(errs)
	}
	for _, rd := range readings {
		lg := phases12(text, rd.crEndsLine)
		if lg.spacedSplice >= 0 {
			add(lg.line[lg.spacedSplice], "a backslash followed by spaces before the end of the line is not allowed: compilers disagree on whether it joins the lines; remove the spaces")
			return directiveError(errs)
		}
		checkLogical(lg, rd, add)
		if len(errs) > 0 {
			return directiveError(errs)
		}
	}
	return nil
}

// reading is one way of reading a source where compilers differ.
type reading struct {
	crEndsLine      bool // a lone carriage return ends a line (else it is a space)
	commentEndsLine bool // a comment that spans lines ends the line it starts on (else it is a space)
}

// readings are the ways CheckDirectives reads a source, the standard's
// first.
var readings = []reading{{true, false}, {true, true}, {false, false}, {false, true}}

// lineAt returns the line of byte offset p of text, from 1, with CR, CRLF
// and LF each ending a line.
func lineAt(text string, p int) int {
	line := 1
	for i := 0; i < p && i < len(text); i++ {
		if text[i] == '\n' || text[i] == '\r' && (i+1 >= len(text) || text[i+1] != '\n') {
			line++
		}
	}
	return line
}

// trigraph returns the offset of the first trigraph of text, or -1.
func trigraph(text string) int {
	for i := 0; i+2 < len(text); i++ {
		if text[i] == '?' && text[i+1] == '?' && strings.IndexByte("=/'()!<>-", text[i+2]) >= 0 {
			return i
		}
	}
	return -1
}

// logical is a source after the translation phases 1 and 2: every line
// ends in '\n', and the lines joined by a backslash are one.
type logical struct {
	text []byte
	line []int  // the source line (CR, CRLF and LF each ending one) of each byte of text
	join []bool // a splice was removed just before this byte of text
	// spacedSplice is the offset in text of a backslash followed by
	// spaces or tabs and the end of a line, or -1.
	spacedSplice int
}

// phases12 returns text with its line ends made '\n' (a lone CR one too
// when crEndsLine, else a space) and its line splices removed.
func phases12(text string, crEndsLine bool) logical {
	lg := logical{text: make([]byte, 0, len(text)), line: make([]int, 0, len(text)), join: make([]bool, 0, len(text)), spacedSplice: -1}
	line, joined := 1, false
	// eol returns the length of the line end at i, or 0.
	eol := func(i int) int {
		switch {
		case i >= len(text):
			return 0
		case text[i] == '\n':
			return 1
		case text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n':
			return 2
		case text[i] == '\r' && crEndsLine:
			return 1
		}
		return 0
	}
	emit := func(c byte) {
		lg.text = append(lg.text, c)
		lg.line = append(lg.line, line)
		lg.join = append(lg.join, joined)
		joined = false
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c == '\\' {
			if n := eol(i + 1); n > 0 {
				i += 1 + n
				line++
				joined = true
				continue
			}
			j := i + 1
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			if j > i+1 && (j == len(text) || eol(j) > 0) && lg.spacedSplice < 0 {
				lg.spacedSplice = len(lg.text)
			}
		}
		if n := eol(i); n > 0 {
			emit('\n')
			i += n
			line++
			continue
		}
		if c == '\r' {
			c = ' ' // a lone CR read as a space
		}
		emit(c)
		i++
	}
	return lg
}

// checkLogical checks the directives of a logical source read as rd.
func checkLogical(lg logical, rd reading, add func(int, string, ...any)) {
	l := lexer{lg: lg, rd: rd}
	lineStart := true
	for {
		tok, line := l.next()
		switch tok.kind {
		case tokEOF:
			return
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
			return
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
	case name.kind == tokBad:
		add(line, "%s", name.text)
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

// lexer splits a logical source (after phases 1 and 2) into the
// preprocessor's tokens, as far as the directive check needs:
// identifiers, # and %:, newlines, and the rest. A comment is a space, or
// a newline when it spans lines and the reading says so.
type lexer struct {
	lg  logical
	rd  reading
	pos int
}

// at returns the byte at p, 0 at the end (the source holds no NUL).
func (l *lexer) at(p int) byte {
	if p >= len(l.lg.text) {
		return 0
	}
	return l.lg.text[p]
}

// lineOf returns the source line of the byte at p.
func (l *lexer) lineOf(p int) int {
	if len(l.lg.line) == 0 {
		return 1
	}
	return l.lg.line[min(p, len(l.lg.line)-1)]
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
}

func isIdent(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// next returns the next token and the line it starts on.
func (l *lexer) next() (token, int) {
	for {
		p := l.pos
		c := l.at(p)
		line := l.lineOf(p)
		switch {
		case c == 0:
			l.pos = len(l.lg.text)
			return token{kind: tokEOF}, line
		case c == '\n':
			l.pos = p + 1
			return token{kind: tokNewline}, line
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.pos = p + 1
		case c == '/' && l.at(p+1) == '/':
			q := p + 2
			for d := l.at(q); d != 0 && d != '\n'; d = l.at(q) {
				q++
			}
			l.pos = q
		case c == '/' && l.at(p+1) == '*':
			end := bytes.Index(l.lg.text[p+2:], []byte("*/"))
			if end < 0 {
				l.pos = len(l.lg.text)
				return token{kind: tokBad, text: "a comment is not closed"}, line
			}
			l.pos = p + 2 + end + 2
			if l.rd.commentEndsLine && bytes.IndexByte(l.lg.text[p:l.pos], '\n') >= 0 {
				return token{kind: tokNewline}, line
			}
		case c == '#':
			l.pos = p + 1
			return token{kind: tokPunct, text: "#"}, line
		case c == '%' && l.at(p+1) == ':':
			l.pos = p + 2
			return token{kind: tokPunct, text: "%:"}, line
		case c == '"' || c == '\'':
			return l.literal(c, p+1, line)
		case c == '\\':
			l.pos = p + 1
			return token{kind: tokBad, text: "a backslash is allowed only in a string or character literal, or at the end of a line (a universal character name such as \\u0041 is allowed only in a literal)"}, line
		case isIdentStart(c):
			q := p + 1
			for isIdent(l.at(q)) {
				q++
			}
			l.pos = q
			id := string(l.lg.text[p:q])
			// Raw string literals: R"delim( … )delim", with a prefix.
			if (id == "R" || id == "u8R" || id == "uR" || id == "UR" || id == "LR") && l.at(q) == '"' {
				return l.raw(q, line)
			}
			// Encoding prefixes of ordinary literals: u8"…", L'…'.
			if (id == "u8" || id == "u" || id == "U" || id == "L") && (l.at(q) == '"' || l.at(q) == '\'') {
				return l.literal(l.at(q), q+1, line)
			}
			return token{kind: tokIdent, text: id}, line
		case c >= '0' && c <= '9' || c == '.' && l.at(p+1) >= '0' && l.at(p+1) <= '9':
			// A pp-number: digits, letters, dots, digit separators and
			// signed exponents.
			q := p + 1
			prev := c
			for {
				d := l.at(q)
				if isIdent(d) || d == '.' || (d == '\'' && isIdent(l.at(q+1))) || ((d == '+' || d == '-') && (prev|0x20 == 'e' || prev|0x20 == 'p')) {
					prev = d
					q++
					continue
				}
				break
			}
			l.pos = q
			return token{kind: tokOther, text: string(l.lg.text[p:q])}, line
		default:
			l.pos = p + 1
			return token{kind: tokPunct, text: string(c)}, line
		}
	}
}

// literal skips a string or character literal opened by quote, whose body
// starts at p.
func (l *lexer) literal(quote byte, p, line int) (token, int) {
	for q := p; ; q++ {
		switch d := l.at(q); {
		case d == 0, d == '\n':
			l.pos = q
			return token{kind: tokBad, text: "a string or character literal is not closed on its line"}, line
		case d == '\\':
			q++
			if l.at(q) == '\n' || l.at(q) == 0 {
				l.pos = q
				return token{kind: tokBad, text: "a string or character literal is not closed on its line"}, line
			}
		case d == quote:
			l.pos = q + 1
			return token{kind: tokOther}, line
		}
	}
}

// raw skips a raw string literal whose opening quote is at p. Line
// splices are undone inside one, so a raw string that holds a splice is
// refused: the check cannot see it as the compiler does.
func (l *lexer) raw(p, line int) (token, int) {
	src := l.lg.text
	q := p + 1 // past the quote
	open := bytes.IndexByte(src[q:], '(')
	if open < 0 || open > 16 || bytes.ContainsAny(src[q:q+open], " \\)\t\n\"") {
		l.pos = q
		return token{kind: tokBad, text: "a raw string literal has no valid delimiter"}, line
	}
	delim := append(append([]byte(")"), src[q:q+open]...), '"')
	end := bytes.Index(src[q+open+1:], delim)
	if end < 0 {
		l.pos = len(src)
		return token{kind: tokBad, text: "a raw string literal is not closed"}, line
	}
	l.pos = q + open + 1 + end + len(delim)
	for i := p; i < l.pos; i++ {
		if l.lg.join[i] {
			return token{kind: tokBad, text: "a backslash at the end of a line inside a raw string literal is not allowed"}, line
		}
	}
	return token{kind: tokOther}, line
}
