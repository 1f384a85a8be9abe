package gradebook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
)

// The leaderboard names no one: each student appears under a pseudonym,
// an adjective, an animal and hex digits ("brisk-otter-3f2a"), from
// HMAC-SHA256 under the instructor's key (the key of the gradebook's MAC,
// see InstructorKey) of "leaderboard\x00" and the student's id. The same
// key gives the same pseudonym in every run; without the key, a pseudonym
// tells nothing of the id; each student's feedback tells them their own.

// pseudonymContext separates the pseudonyms' use of the instructor's key
// from the gradebook's MAC.
const pseudonymContext = "leaderboard\x00"

// pseudonymHex is the number of hex digits of a pseudonym that no other
// student of the gradebook shares; two that would collide both get more
// (see Pseudonyms).
const pseudonymHex = 4

// pseudonymAdjectives and pseudonymAnimals are the words of the
// pseudonyms: 64 each, so that a byte's top six bits pick one.
var (
	pseudonymAdjectives = [64]string{
		"amber", "bold", "brave", "brisk", "calm", "clever", "cosy", "crisp",
		"curious", "daring", "deft", "eager", "early", "fair", "fast", "fine",
		"fleet", "fresh", "gentle", "glad", "golden", "grand", "green", "happy",
		"hardy", "honest", "jolly", "keen", "kind", "light", "lively", "lucky",
		"merry", "mild", "modest", "neat", "nimble", "noble", "patient", "plucky",
		"polite", "proud", "quick", "quiet", "rapid", "ready", "royal", "sharp",
		"shy", "silver", "sleek", "smart", "snappy", "steady", "sunny", "swift",
		"tidy", "tranquil", "upbeat", "vivid", "warm", "wise", "witty", "zesty",
	}
	pseudonymAnimals = [64]string{
		"alpaca", "badger", "beaver", "bison", "camel", "cheetah", "condor", "crane",
		"dingo", "dolphin", "eagle", "egret", "falcon", "ferret", "finch", "fox",
		"gazelle", "gecko", "gibbon", "heron", "ibex", "ibis", "jaguar", "koala",
		"lemur", "lynx", "magpie", "marten", "meerkat", "mole", "moose", "narwhal",
		"newt", "ocelot", "orca", "osprey", "otter", "owl", "panda", "pelican",
		"penguin", "puffin", "quail", "rabbit", "raven", "robin", "salmon", "seal",
		"shrew", "sloth", "sparrow", "stoat", "swan", "tapir", "tern", "toucan",
		"turtle", "vole", "walrus", "weasel", "whale", "wombat", "wren", "yak",
	}
)

// pseudonymMAC is HMAC-SHA256 under key of the context and id.
func pseudonymMAC(key []byte, id string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(pseudonymContext + id))
	return m.Sum(nil)
}

// pseudonymOf is the pseudonym of a MAC with n hex digits.
func pseudonymOf(mac []byte, n int) string {
	return pseudonymAdjectives[mac[0]>>2] + "-" + pseudonymAnimals[mac[1]>>2] + "-" + hex.EncodeToString(mac[2:])[:n]
}

// MinPseudonymKey is the shortest key a pseudonym is derived from (the
// instructor's key is at least this long).
const MinPseudonymKey = 16

// Pseudonym is the pseudonym of the student id under key: two words and
// four hex digits, the same for the same key and id. In a gradebook, two
// students whose pseudonyms would be one get longer ones: see Pseudonyms.
func Pseudonym(key []byte, id string) (string, error) {
	if len(key) < MinPseudonymKey {
		return "", fmt.Errorf("a pseudonym's key has %d bytes: want at least %d", len(key), MinPseudonymKey)
	}
	return pseudonymOf(pseudonymMAC(key, id), pseudonymHex), nil
}

// Pseudonyms maps each student of the gradebook to a pseudonym under key,
// one to one: the students whose four-digit pseudonyms collide get more
// hex digits, as many as tell them apart.
func (g *Book) Pseudonyms(key []byte) (map[string]string, error) {
	if len(key) < MinPseudonymKey {
		return nil, fmt.Errorf("a pseudonym's key has %d bytes: want at least %d", len(key), MinPseudonymKey)
	}
	ids := make([]string, 0, len(g.Students))
	for id := range g.Students {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	macs := make(map[string][]byte, len(ids))
	for _, id := range ids {
		macs[id] = pseudonymMAC(key, id)
	}
	out := make(map[string]string, len(ids))
	// group holds the ids still to be named, n the digits they get.
	group, n := ids, pseudonymHex
	for len(group) > 0 {
		byName := map[string][]string{}
		for _, id := range group {
			name := pseudonymOf(macs[id], n)
			byName[name] = append(byName[name], id)
		}
		var next []string
		for name, which := range byName {
			if len(which) == 1 || n == 2*(sha256.Size-2) {
				for _, id := range which {
					out[id] = name
				}
				continue
			}
			next = append(next, which...)
		}
		sort.Strings(next)
		group, n = next, n+pseudonymHex
	}
	// A longer name that equals another's shorter one cannot be: its
	// digits are more. Two ids with one MAC would be one name; SHA-256
	// makes that impossible in practice.
	return out, nil
}
