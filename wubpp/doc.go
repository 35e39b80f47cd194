// Package wubpp speaks WUBPP, the "Watch yoUr Back! Player Protocol" of
// the COMP30024 (2018) course's networked client netreferee.py (and its
// wubpp.py): a matchmaking and refereeing Server that the unmodified
// netreferee.py connects to, and a client, Join, that plays a zerokit
// agent on any WUBPP server.
//
// # Protocol
//
// Messages are lines of text ending in "\n": a four-letter head, then
// parts separated by blanks (see Parse, which reads them as wubpp.py
// does). Coordinates are (column, row), as in the referee.
//
//	client                          server
//	PLAY name [key]          ->
//	                         <-     OKAY
//	   (the client waits for an opponent: the next client who sent the
//	   same key, or none; or the server's house agent)
//	                         <-     GAME white_name black_name
//	OKAY                     ->
//	                         <-     INIT white|black
//	OKAY                     ->
//	   then, until the game ends, for the player to move:
//	                         <-     TURN n
//	ACTN place x y | ACTN move xa ya xb yb | ACTN pass ->
//	   and for its opponent:
//	                         <-     UPD8 <the same action>
//	OKAY                     ->
//	   the game ends with one of
//	                         <-     OVER white|black|draw
//	                         <-     ERRO loser reason...
//	   (a client that sends anything unasked loses: a message sent
//	   before the server asked for it is never taken as an answer)
//
// TURN's n is the referee's counter: actions played in the current phase
// (0 to 23 in the placing phase, then from 0 again in the moving phase).
// netreferee.py does not acknowledge its own ACTN; the server relays it as
// UPD8 to the opponent, who answers OKAY, and then sends the next TURN.
// After the action that ends the game the opponent still gets its UPD8,
// then both get OVER. The server closes the connection after OVER or ERRO
// (netreferee.py plays one game per connection).
//
// # Refereeing
//
// The Server applies the rules of package env/wyb, identical to the
// course referee's, and validates every action as the referee does
// (wyb.State.RefereeAction, with the referee's reasons). The game ends
// with ERRO naming the loser's colour, and the opponent wins, when a
// player
//
//   - sends an invalid action, or anything but ACTN after TURN;
//   - runs out of thinking time: each player has ServerConfig.GameTime
//     per game (default the course's 60 s), measured by the server from
//     sending TURN to receiving the answer;
//   - does not answer GAME, INIT or UPD8 with OKAY within
//     ServerConfig.ReplyTimeout;
//   - sends a message when none is expected of it, sends garbage or a
//     line longer than ServerConfig.MaxLine, or disconnects.
//
// Before its game a client gets nothing but the OKAY that answers its PLAY
// and then GAME: netreferee.py reads nothing else there without crashing
// (an ERRO instead of GAME or INIT is a KeyError). So a client that
// misbehaves before its game starts (no PLAY within ReplyTimeout, garbage,
// a message while waiting for an opponent), finds no opponent within
// ServerConfig.WaitTimeout, waits while the server shuts down, or comes
// beyond ServerConfig.MaxClients open connections is disconnected without
// a message (netreferee.py prints "connection lost---try again"; Join
// returns ErrNoGame), and the server logs why. A game that ends before a
// player got INIT (its opponent did not answer GAME, say) sends that
// player INIT, then the ERRO. When the server shuts down, games in
// progress end with "ERRO none server shutting down..." and count for
// nobody.
//
// Clients are paired in the order of their PLAY messages; the first of a
// pair plays white. ServerConfig.OnGame records each game before its
// players get OVER or ERRO (package cli's net-server appends it to a
// GameLog and counts it in a Table).
//
// Every game runs in its own goroutine, reading each client through a
// reader goroutine that ends with the connection; nothing a client sends
// can panic the server or touch another game.
package wubpp
