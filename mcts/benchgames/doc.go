// Package benchgames benchmarks package mcts on the real games (Watch Your
// Back! and Squatter). It lives apart from mcts so that mcts itself, and its
// tests, depend only on the env interfaces and the tic-tac-toe test game.
//
//	go test -run XXX -bench . -benchtime 1s ./mcts/benchgames/
package benchgames
