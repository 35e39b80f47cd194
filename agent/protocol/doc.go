// Package protocol serves an agent over a line protocol, so that programs
// in other languages (the Python referee adapter in pyadapter/, a TCP client)
// and people can play against it.
//
// # Protocol
//
// A session is a sequence of requests, each answered by exactly one
// response. Requests and responses are single lines of UTF-8 text ending
// in "\n" (a "\r" before it and blanks around the line are ignored).
// Keywords are lower case.
//
//	init <colour>     -> ok
//	    Starts a new game in which the agent plays colour ("white" or
//	    "black" for Watch Your Back!), abandoning any game in progress.
//	    The server builds a fresh agent and keeps its own replica of the
//	    game.
//	action <turns>    -> <action>
//	    Asks the agent for its action. turns is the referee's turn
//	    counter (for Watch Your Back!: turns played in the current phase,
//	    restarting at 0 when the moving phase begins); it must equal the
//	    replica's, so a missed or repeated update is detected. The response
//	    is the action in the referee's form, for Watch Your Back! JSON:
//	    [3, 4] places on column 3, row 4; [[3, 4], [3, 5]] moves (or jumps)
//	    from (3, 4) to (3, 5); null forfeits. The server applies it to the
//	    replica.
//	update <action>   -> ok
//	    Reports the opponent's action in the referee's form. It is
//	    validated against the replica exactly as the referee would; an
//	    illegal action is an error and leaves the replica unchanged.
//	status            -> <judgement>
//	    Only for a referee that leaves judging the game to its players
//	    (the codec implements env.RefereeJudge; other games answer an
//	    error): the game's result and board in that referee's terms, on
//	    one line, also once the game is over. For Squatter (2015) it is
//	    "<winner> <rows>", e.g. "0 +W+.../..." (squatter.Codec.Judge).
//	locked            -> yes | no
//	    Whether the game in progress is locked (env.Locker): neither
//	    player can do anything but forfeit, now or ever again (Watch Your
//	    Back! after the second shrink with no piece able to move). The
//	    Python adapter asks after each forfeit of its agent and, on yes,
//	    answers the referee's further requests itself: a referee without a
//	    turn limit ends such a game only when a clock runs out.
//	quit              -> bye
//	    Ends the session.
//
// Any request that is malformed, out of place (action when the opponent is
// to move, update when the agent is, action or update before the first
// init or after the game ended) or that the agent fails to answer gets
//
//	error <reason>
//
// and the session goes on with the replica unchanged: the server never
// crashes on input, and a panic inside an agent abandons only that game.
// Lines longer than Config.MaxLine bytes (default 4096) are errors too.
// The end of the input ends the session like quit, without a response.
//
// The server does not trust its agent: an illegal action chosen by the
// agent is reported as an error rather than sent.
//
// Serve is game-independent; a Codec supplies the game's referee
// conventions (colour names, turn counter, action text); games supply
// theirs (env.Refereed). wyb.Codec is the codec
// of the Watch Your Back! course referee (2018, Python), squatter.Codec that
// of the Squatter course referee (2015, Java), which is played in "P Row
// Col" moves.
//
// # Time
//
// Each action request runs the agent under a context deadline. Config.Budget
// sets it:
//
//   - MoveTime alone: every move gets MoveTime.
//   - GameTime: a budget for the whole game (the course allowed each player
//     60 s of CPU time and 100 MB per game). A Clock charges every request
//     of the game (init, update and action; in stdin mode the larger of
//     wall time and the process's CPU time, so multi-threaded search is
//     charged fully) and allots each move
//     (GameTime*(1-ReserveFraction) - used) / movesToGo, capped by
//     MoveTime, where movesToGo = max(MinMovesToGo, ceil((horizon -
//     moveNumber)/2)) estimates the agent's remaining moves from the game's
//     length bound (Budget.Horizon, else Game.MaxGameLength, else
//     DefaultHorizon further actions). A state that implements
//     env.TimeWeighter (Watch Your Back!) says instead what its move
//     deserves relative to the agent's moves left until thinking stops
//     paying (in Watch Your Back!, the second shrink: the moves before the
//     shrinks weigh more, and after the second the table plays): the move
//     gets TimeWeight/TimeWeightToGo of what is left, TimeWeightToGo
//     counting as at least MinMovesToGo. Time an agent saves is spread over
//     later moves; once the budget is spent every move gets PanicTime, or,
//     with a fallback agent (Config.NewFallback), the fallback answers
//     every further move at once, so that a game longer than any horizon
//     (the course referee has no turn limit) still ends within the limit.
//
// Agents must honour the deadline (search agents stop and return their
// best action so far); the deadline bounds thinking time, it cannot stop an
// agent that ignores it. The agents of this module never fail on a
// passed deadline (agent.Agent): a search whose deadline passes before it
// has a result falls back on a move of its own (mcts.Result.Fallback),
// counted in GameStats.Fallbacks. An agent that fails with
// context.DeadlineExceeded instead (a search that cannot stop early) is
// replaced for that move by Config.NewFallback's agent, if set. The referee measures only its own process, so the
// server's time and memory are not charged by it; the budget keeps the
// agent within the course's limits anyway.
package protocol
