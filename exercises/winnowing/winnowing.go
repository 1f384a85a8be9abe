// Package winnowing fingerprints source code so that copies can be found
// whatever their names and layout: tokenizers of Go and of C-like text
// (CUDA included) that mark identifiers, fold literals and drop comments
// and whitespace, the hash of a k-gram of tokens with its identifiers
// renamed by first appearance, and winnowing (Schleimer, Wilkerson and
// Aiken, SIGMOD 2003), which keeps the smallest hash of every window of
// consecutive k-grams.
package winnowing

import (
	"fmt"
	"go/scanner"
	"go/token"
	"hash/fnv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Token is a normalised token and its line.
type Token struct {
	Text  string
	Line  int
	Ident bool // an identifier, renamed to a placeholder in each k-gram
}

// goKeepIdent are identifiers kept as they are: they carry the meaning of
// the code rather than a name chosen by its writer.
var goKeepIdent = map[string]bool{"nil": true, "true": true, "false": true, "len": true, "make": true, "append": true}

// GoTokens returns the tokens of Go source, as go/scanner reads it after
// its semicolon insertion: identifiers marked for renaming, string
// literals folded, and every semicolon, written out or inserted at the end
// of a line, the same token ";", so that code with its semicolons written
// out reads as the same code without them. Text that is not Go gives
// whatever tokens the scanner makes of it.
func GoTokens(src string) []Token {
	var s scanner.Scanner
	fset := token.NewFileSet()
	b := []byte(src)
	f := fset.AddFile("", fset.Base(), len(b))
	s.Init(f, b, func(token.Position, string) {}, 0)
	var out []Token
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			return out
		}
		line := f.Line(pos)
		switch {
		case t == token.SEMICOLON:
			// Written out (";") or inserted ("\n" or EOF): one statement
			// end. Two in a row (an empty statement) are one.
			if len(out) == 0 || out[len(out)-1].Text != ";" {
				out = append(out, Token{Text: ";", Line: line})
			}
		case t == token.IDENT && !goKeepIdent[lit]:
			out = append(out, Token{Text: lit, Line: line, Ident: true})
		case t == token.IDENT:
			out = append(out, Token{Text: lit, Line: line})
		case t == token.STRING || t == token.CHAR:
			out = append(out, Token{Text: "STR", Line: line})
		case t == token.INT || t == token.FLOAT || t == token.IMAG:
			out = append(out, Token{Text: lit, Line: line})
		default:
			if (t == token.RBRACE || t == token.RPAREN) && len(out) > 0 && out[len(out)-1].Text == ";" {
				// Go lets the last semicolon before a closing ) or } go
				// unwritten: "{ return x }" is "{\n\treturn x\n}".
				out = out[:len(out)-1]
			}
			out = append(out, Token{Text: t.String(), Line: line})
		}
	}
}

// cKeywords are the C, C++ and CUDA words kept as they are, made on the
// first use rather than when a program importing the package starts.
var cKeywords = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(`auto break case char const continue default do double else enum extern float for goto if
		int long register return short signed sizeof static struct switch typedef union unsigned void volatile while
		bool true false nullptr inline define ifndef ifdef endif include pragma __global__ __device__ __host__
		__shared__ __restrict__ __syncthreads __ldg threadIdx blockIdx blockDim gridDim min max
		func var range go defer chan map package import type interface nil`) {
		set[w] = true
	}
	return set
})

// cOps are the operators of more than one character, longest first.
var cOps = []string{"<<=", ">>=", "...", "&^=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", ":=", "&^", "<-"}

// Splice returns C-like text as the preprocessor's translation phases 1
// and 2 leave it: CR, CRLF and LF each end a line, written '\n', and a
// backslash at the end of a line joins it to the next. It also returns,
// for each line of the result, the line of src it starts on.
func Splice(src string) (string, []int) {
	var b strings.Builder
	b.Grow(len(src))
	lines := []int{1}
	line := 1
	eol := func(i int) int {
		switch {
		case i >= len(src):
			return 0
		case src[i] == '\n':
			return 1
		case src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n':
			return 2
		case src[i] == '\r':
			return 1
		}
		return 0
	}
	for i := 0; i < len(src); {
		if src[i] == '\\' {
			if n := eol(i + 1); n > 0 {
				i += 1 + n
				line++
				continue
			}
		}
		if n := eol(i); n > 0 {
			b.WriteByte('\n')
			i += n
			line++
			lines = append(lines, line)
			continue
		}
		b.WriteByte(src[i])
		i++
	}
	return b.String(), lines
}

// CTokens returns the tokens of C-like text after the preprocessor's
// phases 1 to 3 (Splice; comments dropped): identifiers marked for
// renaming (C and CUDA keywords kept), numbers kept, string and character
// literals folded. A name split by line splices is one identifier. A
// backquote is a token of its own, so that CUDA held in a Go raw string is
// read as CUDA. Lines are those of src.
func CTokens(src string) []Token {
	text, starts := Splice(src)
	toks := cTokens(text)
	for i := range toks {
		toks[i].Line = starts[min(toks[i].Line, len(starts))-1]
	}
	return toks
}

// cTokens is CTokens of spliced text, with its own line numbers.
func cTokens(src string) []Token {
	keywords := cKeywords()
	var out []Token
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				end = len(src) - i - 2
			}
			line += strings.Count(src[i:i+2+end], "\n")
			i += min(end+4, len(src)-i)
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, Token{Text: "STR", Line: line})
			i = min(j+1, len(src))
		case isIdentStart(c):
			j := i
			for j < len(src) && (isIdentStart(src[j]) || isDigit(src[j])) {
				j++
			}
			w := src[i:j]
			out = append(out, Token{Text: w, Line: line, Ident: !keywords[w]})
			i = j
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			j := i
			for j < len(src) && (isDigit(src[j]) || isIdentStart(src[j]) || src[j] == '.' ||
				((src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E'))) {
				j++
			}
			out = append(out, Token{Text: src[i:j], Line: line})
			i = j
		default:
			op := string(c)
			for _, o := range cOps {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if c >= utf8.RuneSelf { // a letter or symbol of prose: one token per rune
				_, size := utf8.DecodeRuneInString(src[i:])
				op = src[i : i+size]
			}
			out = append(out, Token{Text: op, Line: line})
			i += len(op)
		}
	}
	return out
}

func isIdentStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }

// Print is a fingerprint: a k-gram's hash and the line of its first
// token.
type Print struct {
	Hash uint64
	Line int
}

// KGramHash hashes toks with identifiers renamed by first appearance in
// the k-gram: "a = b + a" and "x = y + x" hash alike.
func KGramHash(toks []Token) uint64 {
	h := fnv.New64a()
	names := map[string]int{}
	for _, t := range toks {
		text := t.Text
		if t.Ident {
			n, ok := names[text]
			if !ok {
				n = len(names)
				names[text] = n
			}
			text = fmt.Sprintf("$%d", n)
		}
		h.Write([]byte(text))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// Winnow returns the fingerprints of toks: the hash of every k-gram of k
// tokens, and in every window of w consecutive hashes the smallest (the
// rightmost of equals). Every run of at least k+w−1 tokens two texts share
// gives them a fingerprint in common.
func Winnow(toks []Token, k, w int) []Print {
	if k < 1 || w < 1 || len(toks) < k {
		return nil
	}
	hashes := make([]Print, len(toks)-k+1)
	for i := range hashes {
		hashes[i] = Print{KGramHash(toks[i : i+k]), toks[i].Line}
	}
	var out []Print
	last := -1
	for start := 0; start == 0 || start+w <= len(hashes); start++ {
		best := start
		for i := start; i < min(start+w, len(hashes)); i++ {
			if hashes[i].Hash <= hashes[best].Hash {
				best = i
			}
		}
		if best != last {
			out = append(out, hashes[best])
			last = best
		}
	}
	return out
}

// AllHashes returns the set of the hashes of every k-gram of k tokens of
// toks, not only the winnowed ones: what is public when any k-gram of it
// is.
func AllHashes(toks []Token, k int) map[uint64]bool {
	set := map[uint64]bool{}
	for i := 0; i+k <= len(toks); i++ {
		set[KGramHash(toks[i:i+k])] = true
	}
	return set
}

// PrintSet returns the set of the fingerprints' hashes.
func PrintSet(ps []Print) map[uint64]bool {
	set := map[uint64]bool{}
	for _, p := range ps {
		set[p.Hash] = true
	}
	return set
}
