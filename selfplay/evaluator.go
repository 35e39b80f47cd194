package selfplay

import "github.com/zerokit/zerokit/mcts"

// StatsEvaluator is an evaluator that reports mcts.EvalStats (an
// mcts.NetEvaluator does); Generator.Run
// includes the work done during the run in its Stats.
type StatsEvaluator interface {
	mcts.Evaluator
	EvalStats() mcts.EvalStats
}
