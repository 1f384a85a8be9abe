// Package predict holds the notebooks' prediction questions: each question
// with its answer computed by the lab (Questions), the check of a student's
// prediction (Check, Predict) and its answer shown after it (Reveal), and
// the guard that finds an answer leaking into the text a student reads
// before the check (AnswerLeaks).
package predict
