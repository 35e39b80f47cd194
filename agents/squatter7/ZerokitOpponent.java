package zerokit;

/**
 * A second zerokit player, configured under the name zerokit_opponent
 * (system properties zerokit_opponent.KEY, environment variables
 * ZEROKIT_OPPONENT_KEY, file zerokit_opponent.properties; see
 * {@link ZerokitPlayer}), so that one referee run can seat two differently
 * configured agents, e.g. the exported agent against
 * -Dzerokit_opponent.agent=alphabeta:depth=4.
 */
public class ZerokitOpponent extends ZerokitPlayer {
    public ZerokitOpponent() {
        super("zerokit_opponent");
    }
}
