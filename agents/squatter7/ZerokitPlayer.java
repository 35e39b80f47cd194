package zerokit;

import aiproj.squatter.Move;
import aiproj.squatter.Piece;
import aiproj.squatter.Player;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A zerokit agent as a player of the COMP30024 (2015) Squatter referee:
 *
 * <pre>
 *   java -cp COURSE_CLASSES:zerokit-player.jar aiproj.squatter.Referee 6 zerokit.ZerokitPlayer their.Player
 * </pre>
 *
 * init starts "zerokit serve -game squatterN" (or connects to a running
 * "zerokit serve -listen") and every call of the referee becomes a request
 * of zerokit's line protocol (agent/protocol/doc.go in the zerokit
 * repository):
 *
 * <pre>
 *   init(n, p)        init white|black     -> ok
 *   makeMove()        action TURNS         -> P Row Col
 *   opponentMove(m)   update P Row Col     -> ok | error REASON (returns -1)
 *   after each move   status               -> WINNER ROWS (cached for getWinner, printBoard)
 * </pre>
 *
 * The referee has no rules engine, so the player does its job with
 * zerokit's rules: opponentMove returns -1 for a move that zerokit rejects
 * (an occupied or captured cell, a cell off the board, a wrong P),
 * getWinner reports the end and the result as the rules define them, and
 * printBoard prints the board in the course's style: + free, W and B live
 * pieces, w and b captured pieces, - a captured empty cell.
 *
 * <p>Configuration. The referee builds players with no arguments, so each
 * setting KEY is read from, in order: the system property NAME.KEY (java
 * -Dzerokit_player.agent=...), the environment variable NAME_KEY in upper
 * case (ZEROKIT_PLAYER_AGENT), the file NAME.properties, else a default.
 * NAME is "zerokit_player" for this class and "zerokit_opponent" for
 * {@link ZerokitOpponent}, so one referee can seat two differently
 * configured agents; a subclass can pass its own NAME. The file is the one
 * named by NAME.config (property or variable), else NAME.properties in the
 * directory holding this class's jar, or holding the class-path directory
 * of its package. Keys:
 *
 * <pre>
 *   binary        the zerokit executable (default: zerokit next to the file, else on PATH);
 *                 a relative path in the file is relative to the file
 *   agent         agent spec (default "default", the trained agent zerokit ships)
 *   args          more "zerokit serve" flags, separated by blanks (default none); set as
 *                 a property or variable, even to "", it replaces the file's args
 *   game_time     thinking budget per game in seconds, zerokit serve's -game-time, or "course":
 *                 80% of the course's limit for the referee's N (see cpu_limit); giving it and
 *                 a -game-time in args is an error: one setting sets the budget (default 0: none)
 *   address       HOST:PORT of a running "zerokit serve -game squatterN -listen HOST:PORT"
 *                 to connect to instead of starting a process
 *   timeout       seconds to wait for each answer (default 600; 0: for ever)
 *   cpu_limit     the agent's CPU seconds per game; over it the player fails, or "course": the
 *                 2015 course's limit for N, 7.5 s on 6x6, 10 s on 7x7 and 10 s * N * N / 49
 *                 on larger boards, rounded to 0.1 s (default 0: none)
 *   memory_limit  the agent's peak resident MB; likewise (default 0: none)
 *   usage_log     a file of JSON lines, one per game: the agent's usage, its line updated
 *                 after every call, earlier games' lines kept; {colour} and {name} in it
 *                 are replaced (default none). The serve process's stderr is appended
 *                 to the same name with ".stderr" added, a header line per game
 * </pre>
 *
 * <p>Fallback moves. The player runs serve with -v, which reports on stderr
 * how many of the agent's moves were not chosen by a completed search (the
 * time ran out first); the player repeats that count in its summary on
 * stderr at the end of the game and in the usage log ("fallback_moves").
 * Without usage_log serve's stderr goes to a temporary file, deleted at
 * exit.
 *
 * <p>Resources. The referee measures nothing, and the agent thinks in a
 * child process. The player charges the agent that process's CPU time
 * (all its threads) plus the CPU time this player spends in the
 * referee's thread, and counts as its memory the process's peak resident
 * set (VmHWM, Linux). The JVM is shared with the referee and the other
 * player, so its memory is not charged. Connected to a server over TCP
 * only the Java side can be measured.
 *
 * <p>Failures. A player that cannot start (init) reports -1 from
 * getWinner, which ends the game. A server that dies, answers nonsense or
 * runs out of time or memory makes the call throw ZerokitException, which
 * ends the referee. Messages go to stderr, prefixed "zerokit_player
 * white:", never to stdout, which belongs to the referee.
 */
public class ZerokitPlayer implements Player, Piece {
    private static final String DEFAULT_NAME = "zerokit_player";
    private static final int MAX_LINE = 1 << 16;

    /** A failure of the agent or its configuration. */
    public static class ZerokitException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ZerokitException(String message) {
            super(message);
        }
    }

    private final String name;
    private Settings settings;
    private Connection conn;
    private Usage usage;
    private String colour = "?";
    private int n;
    private int moves;
    private int winner = INVALID;
    private String[] rows = new String[0];
    private String failure = "not initialised";

    /** A player configured under the name zerokit_player. */
    public ZerokitPlayer() {
        this(DEFAULT_NAME);
    }

    /** A player configured under name (see the class documentation). */
    protected ZerokitPlayer(String name) {
        this.name = name;
    }

    @Override
    public int init(int n, int p) {
        long start = threadCpu();
        close();
        winner = INVALID;
        rows = new String[0];
        moves = 0;
        this.n = n;
        colour = p == WHITE ? "white" : p == BLACK ? "black" : "colour " + p;
        try {
            if (p != WHITE && p != BLACK) {
                throw new ZerokitException("init: piece " + p + " is neither WHITE (1) nor BLACK (2)");
            }
            settings = Settings.load(name, getClass());
            String log = settings.usageLog(colour);
            conn = new Connection(settings, n, log == null ? null : log + ".stderr", name + " " + colour);
            usage = new Usage(settings, n, colour, name, conn.pid(), log);
            Runtime.getRuntime().addShutdownHook(new Thread(this::close));
            request("init " + colour, start);
            refresh(threadCpu());
            if (rows.length != n) {
                throw new ZerokitException("the zerokit server plays a board of " + rows.length + " rows, the referee " + n);
            }
            failure = null;
            return 0;
        } catch (ZerokitException e) {
            failure = e.getMessage();
            log("cannot start: " + failure);
            close();
            winner = INVALID;
            return -1;
        }
    }

    @Override
    public Move makeMove() {
        long start = threadCpu();
        ready();
        String resp = request("action " + moves, start);
        int[] v = parseMove(resp);
        if (v == null) {
            throw fail("the agent answered \"" + resp + "\", not a move \"P Row Col\"");
        }
        moves++;
        Move m = new Move();
        m.P = v[0];
        m.Row = v[1];
        m.Col = v[2];
        refresh(threadCpu());
        return m;
    }

    @Override
    public int opponentMove(Move m) {
        long start = threadCpu();
        ready();
        if (m == null) {
            log("rejects the opponent's move: null");
            return -1;
        }
        String move = m.P + " " + m.Row + " " + m.Col;
        String resp = conn.request("update " + move);
        if (resp.startsWith("error")) {
            account(start);
            log("rejects the opponent's move " + move + ":" + resp.substring("error".length()));
            return -1;
        }
        if (!resp.equals("ok")) {
            throw fail("the agent answered \"" + resp + "\" to the opponent's move " + move);
        }
        account(start);
        moves++;
        refresh(threadCpu());
        return 0;
    }

    @Override
    public int getWinner() {
        return winner;
    }

    @Override
    public void printBoard(PrintStream output) {
        if (failure != null) {
            output.println("(zerokit player " + colour + " has no board: " + failure + ")");
            return;
        }
        for (String row : rows) {
            StringBuilder b = new StringBuilder(2 * row.length());
            for (int i = 0; i < row.length(); i++) {
                if (i > 0) {
                    b.append(' ');
                }
                b.append(row.charAt(i));
            }
            output.println(b);
        }
    }

    /** Ends the session with the agent; the referee never calls it (a shutdown hook does). */
    public synchronized void close() {
        if (conn == null) {
            return;
        }
        Connection c = conn;
        conn = null;
        c.close();
        if (usage != null) {
            usage.games(c.stderrSection());
            usage.write();
            log(usage.summary());
        }
    }

    private void ready() {
        if (failure != null || conn == null) {
            throw new ZerokitException("zerokit player " + colour + " cannot play: " + failure);
        }
    }

    /** Asks the server for the winner and the board after a move. */
    private void refresh(long start) {
        String resp = request("status", start);
        int sp = resp.indexOf(' ');
        try {
            winner = Integer.parseInt(sp < 0 ? resp : resp.substring(0, sp));
        } catch (NumberFormatException e) {
            throw fail("the agent answered \"" + resp + "\" to status, not \"WINNER ROWS\"");
        }
        rows = sp < 0 ? new String[0] : resp.substring(sp + 1).split("/");
        if (winner < EMPTY || winner > DEAD) {
            throw fail("the agent reports the winner " + winner);
        }
    }

    /** Sends one request; an error answer or a limit fails the player. */
    private String request(String line, long start) {
        String resp = conn.request(line);
        if (resp.startsWith("error")) {
            throw fail("the agent answered \"" + line + "\" with: " + resp.substring("error".length()).trim());
        }
        account(start);
        return resp;
    }

    /** Charges the time since start and checks the limits. */
    private void account(long start) {
        usage.measure(threadCpu() - start);
        String over = usage.exceeded();
        if (over != null) {
            throw fail("the agent " + over);
        }
    }

    private ZerokitException fail(String message) {
        failure = message;
        String tail = conn == null ? "" : conn.stderrTail();
        log(message + (tail.isEmpty() ? "" : "; its stderr ends with:\n" + tail));
        return new ZerokitException("zerokit player " + colour + ": " + message);
    }

    private void log(String message) {
        System.err.println(name + " " + colour + ": " + message);
    }

    private static long threadCpu() {
        ThreadMXBean b = ManagementFactory.getThreadMXBean();
        return b.isCurrentThreadCpuTimeSupported() ? b.getCurrentThreadCpuTime() : 0;
    }

    /** Reads "P Row Col", or returns null. */
    static int[] parseMove(String text) {
        String[] f = text.trim().split("\\s+");
        if (f.length != 3) {
            return null;
        }
        int[] v = new int[3];
        try {
            for (int i = 0; i < 3; i++) {
                v[i] = Integer.parseInt(f[i]);
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return v;
    }

    /** The resolved configuration (see the class documentation). */
    static final class Settings {
        final String name;
        String binary;
        String agent;
        List<String> args = new ArrayList<>();
        double gameTime;
        String address;
        double timeout;
        double cpuLimit;
        double memoryLimit;
        String usageLog;

        private final Properties file = new Properties();
        private String fileName;

        private Settings(String name) {
            this.name = name;
        }

        static Settings load(String name, Class<?> cls) {
            Settings s = new Settings(name);
            Path dir = codeDir(cls);
            Path path = null;
            String explicit = s.lookup("config", false);
            if (explicit != null) {
                path = Paths.get(explicit);
                if (!Files.isRegularFile(path)) {
                    throw new ZerokitException(s.source("config") + " names " + explicit + ", which is not a file");
                }
            } else if (dir != null && Files.isRegularFile(dir.resolve(name + ".properties"))) {
                path = dir.resolve(name + ".properties");
            }
            if (path != null) {
                s.fileName = path.toString();
                try (InputStream in = new FileInputStream(path.toFile())) {
                    s.file.load(new InputStreamReader(in, StandardCharsets.UTF_8));
                } catch (IOException | IllegalArgumentException e) {
                    throw new ZerokitException("config file " + path + ": " + e.getMessage());
                }
                for (String key : s.file.stringPropertyNames()) {
                    if (!KEYS.contains(key)) {
                        throw new ZerokitException("config file " + path + ": unknown key \"" + key + "\" (known: " + String.join(", ", KEYS) + ")");
                    }
                }
                dir = path.toAbsolutePath().getParent();
            }
            String bin = s.lookup("binary", true);
            if (bin == null) {
                File here = dir == null ? null : dir.resolve("zerokit").toFile();
                bin = here != null && here.isFile() ? here.getPath() : "zerokit";
            } else if (s.fromFile("binary") && !new File(bin).isAbsolute() && bin.contains(File.separator)) {
                bin = dir.resolve(bin).toString();
            }
            s.binary = bin;
            String agent = s.lookup("agent", true);
            s.agent = agent == null ? "default" : agent;
            // A property or variable set to "" clears the file's args.
            String args = s.explicit("args");
            if (args == null) {
                args = s.lookup("args", true);
            }
            if (args != null && !args.trim().isEmpty()) {
                for (String a : args.trim().split("\\s+")) {
                    s.args.add(a);
                }
            }
            s.gameTime = s.number("game_time", 0, true);
            String flag = gameTimeFlag(s.args);
            if (flag != null && s.lookup("game_time", true) != null) {
                throw new ZerokitException(s.source("game_time") + " and \"" + flag + "\" in "
                        + s.argsSource() + " both set the agent's time budget per game: keep one"
                        + " (a property " + name + ".args or variable "
                        + (name + "_args").toUpperCase(Locale.ROOT) + " set to \"\" clears args)");
            }
            s.address = s.lookup("address", true);
            if (s.address != null && s.address.lastIndexOf(':') <= 0) {
                throw new ZerokitException(s.source("address") + ": want HOST:PORT, got \"" + s.address + "\"");
            }
            s.timeout = s.number("timeout", 600, false);
            s.cpuLimit = s.number("cpu_limit", 0, true);
            s.memoryLimit = s.number("memory_limit", 0, false);
            s.usageLog = s.lookup("usage_log", true);
            return s;
        }

        /** The -game-time flag among args (as given), or null. */
        static String gameTimeFlag(List<String> args) {
            for (String a : args) {
                String f = a.startsWith("--") ? a.substring(1) : a;
                if (f.equals("-game-time") || f.startsWith("-game-time=")) {
                    return a;
                }
            }
            return null;
        }

        /** The property, else the variable, even if empty; null if neither is set. */
        private String explicit(String key) {
            String v = property(key);
            return v != null ? v : variable(key);
        }

        /** Names where args was read from, for messages. */
        private String argsSource() {
            if (property("args") != null) {
                return "system property " + name + ".args";
            }
            if (variable("args") != null) {
                return "environment variable " + (name + "_args").toUpperCase(Locale.ROOT);
            }
            return "config file " + fileName + " key args";
        }

        /** The usage log's file name for a player of colour, or null. */
        String usageLog(String colour) {
            return usageLog == null ? null : usageLog.replace("{colour}", colour).replace("{name}", name);
        }

        static final List<String> KEYS = List.of("binary", "agent", "args", "game_time", "address", "timeout",
                "cpu_limit", "memory_limit", "usage_log");

        private String property(String key) {
            return System.getProperty(name + "." + key);
        }

        private String variable(String key) {
            return System.getenv((name + "_" + key).toUpperCase(Locale.ROOT));
        }

        /** The setting key, or null; withFile also reads the config file. */
        private String lookup(String key, boolean withFile) {
            String v = property(key);
            if (v == null || v.isEmpty()) {
                v = variable(key);
            }
            if ((v == null || v.isEmpty()) && withFile) {
                v = file.getProperty(key);
            }
            return v == null || v.isEmpty() ? null : v.trim();
        }

        private boolean fromFile(String key) {
            String p = property(key), e = variable(key);
            return (p == null || p.isEmpty()) && (e == null || e.isEmpty()) && file.getProperty(key) != null;
        }

        /** Names where key was read from, for messages. */
        private String source(String key) {
            String p = property(key);
            if (p != null && !p.isEmpty()) {
                return "system property " + name + "." + key;
            }
            String e = variable(key);
            if (e != null && !e.isEmpty()) {
                return "environment variable " + (name + "_" + key).toUpperCase(Locale.ROOT);
            }
            return "config file " + fileName + " key " + key;
        }

        /** COURSE is a number setting's value "course" (see the class documentation). */
        static final double COURSE = -1;

        /**
         * The 2015 course's CPU seconds per player per game on an n x n
         * board: 7.5 on 6x6 and 10 on 7x7, as measured then
         * (shared/referee-squatter/README.md in the zerokit repository);
         * for larger boards, which that course did not play, the 7x7
         * limit per cell (the lower of the two rates), 10 * n * n / 49,
         * rounded to 0.1 s.
         */
        static double courseLimit(int n) {
            if (n <= 6) {
                return 7.5;
            }
            return Math.round(100.0 * n * n / 49) / 10.0;
        }

        /**
         * The default thinking budget per game on an n x n board: 80% of
         * courseLimit, rounded to 0.1 s; the rest covers the process's
         * start, the player's own time and the last move's overrun.
         */
        static double courseGameTime(int n) {
            return Math.round(courseLimit(n) * 8) / 10.0;
        }

        /** The budget and the limit for an n x n board, "course" resolved. */
        double gameTime(int n) {
            return gameTime == COURSE ? courseGameTime(n) : gameTime;
        }

        double cpuLimit(int n) {
            return cpuLimit == COURSE ? courseLimit(n) : cpuLimit;
        }

        private double number(String key, double def, boolean course) {
            String v = lookup(key, true);
            if (v == null) {
                return def;
            }
            if (course && v.equals("course")) {
                return COURSE;
            }
            try {
                double d = Double.parseDouble(v);
                if (d >= 0 && !Double.isInfinite(d)) {
                    return d;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new ZerokitException(source(key) + ": want a number >= 0" + (course ? " or \"course\"" : "") + ", got \"" + v + "\"");
        }

        /** The directory of cls's jar, or the class-path directory of its package. */
        private static Path codeDir(Class<?> cls) {
            try {
                Path p = Paths.get(cls.getProtectionDomain().getCodeSource().getLocation().toURI());
                return Files.isDirectory(p) ? p : p.getParent();
            } catch (Exception e) { // no code source: a special class loader
                return null;
            }
        }
    }

    /** One protocol session: a zerokit serve process or a TCP connection. */
    static final class Connection {
        private final Process proc;
        private final Socket sock;
        private final OutputStream out;
        private final File stderr;
        private final boolean keepStderr;
        private final long stderrStart;
        private final String describe;
        private final long timeoutMillis;
        private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private static final String EOF = new String("end of input");

        /**
         * Starts the agent, or connects to it. The process's stderr is
         * appended to stderrLog (after a header line naming who and when)
         * when it is not null, else it goes to a temporary file.
         */
        Connection(Settings s, int n, String stderrLog, String who) {
            timeoutMillis = (long) (s.timeout * 1000);
            keepStderr = stderrLog != null;
            InputStream in;
            try {
                if (s.address != null) {
                    int i = s.address.lastIndexOf(':');
                    describe = "zerokit server at " + s.address;
                    sock = new Socket(s.address.substring(0, i), Integer.parseInt(s.address.substring(i + 1)));
                    proc = null;
                    stderr = null;
                    stderrStart = 0;
                    in = sock.getInputStream();
                    out = sock.getOutputStream();
                } else {
                    // -v: serve reports each game's moves and fallback moves on stderr.
                    List<String> cmd = new ArrayList<>(List.of(s.binary, "serve", "-game", "squatter" + n, "-agent", s.agent, "-v"));
                    double gameTime = s.gameTime(n);
                    if (gameTime > 0) {
                        cmd.add("-game-time");
                        cmd.add(gameTime + "s");
                    }
                    cmd.addAll(s.args);
                    describe = "zerokit serve process (" + String.join(" ", cmd) + ")";
                    if (keepStderr) {
                        stderr = new File(stderrLog);
                        stderrStart = stderr.length();
                        String header = "== " + who + ": " + Instant.now() + ": " + String.join(" ", cmd) + "\n";
                        Files.write(stderr.toPath(), header.getBytes(StandardCharsets.UTF_8),
                                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                    } else {
                        stderr = File.createTempFile("zerokit-serve-", ".err");
                        stderr.deleteOnExit();
                        stderrStart = 0;
                    }
                    proc = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(stderr)).start();
                    sock = null;
                    in = proc.getInputStream();
                    out = proc.getOutputStream();
                }
            } catch (IOException | NumberFormatException e) {
                throw new ZerokitException("cannot start the agent (" + (s.address != null ? "connect to " + s.address : s.binary + " serve") + "): " + e.getMessage());
            }
            Thread reader = new Thread(() -> readLines(in), "zerokit-reader");
            reader.setDaemon(true);
            reader.start();
        }

        long pid() {
            return proc == null ? -1 : proc.pid();
        }

        private void readLines(InputStream in) {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line.length() > MAX_LINE ? "error answer longer than " + MAX_LINE + " characters" : line);
                }
            } catch (IOException e) {
                // the end of the input, like a closed stream
            }
            lines.add(EOF);
        }

        /** Sends line and returns the answer (an "error ..." answer included). */
        String request(String line) {
            try {
                out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            } catch (IOException e) {
                throw died("cannot be written to (" + e.getMessage() + ")");
            }
            String resp;
            try {
                resp = timeoutMillis > 0 ? lines.poll(timeoutMillis, TimeUnit.MILLISECONDS) : lines.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ZerokitException("interrupted waiting for " + describe);
            }
            if (resp == null) {
                throw new ZerokitException(describe + " did not answer \"" + line + "\" within " + timeoutMillis / 1000.0 + " s");
            }
            if (resp == EOF) {
                lines.add(EOF);
                throw died("closed the session while answering \"" + line + "\"");
            }
            return resp;
        }

        private ZerokitException died(String what) {
            String msg = describe + " " + what;
            if (proc != null) {
                try {
                    if (proc.waitFor(2, TimeUnit.SECONDS)) {
                        msg += " (exit status " + proc.exitValue() + ")";
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return new ZerokitException(msg);
        }

        String stderrTail() {
            String s = stderrSection().trim();
            return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
        }

        /** What this session's process wrote to stderr (its last MB at most), or "". */
        String stderrSection() {
            if (stderr == null) {
                return "";
            }
            try (RandomAccessFile f = new RandomAccessFile(stderr, "r")) {
                long start = Math.max(stderrStart, f.length() - (1 << 20));
                byte[] b = new byte[(int) Math.max(0, f.length() - start)];
                f.seek(start);
                f.readFully(b);
                return new String(b, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        }

        /** Ends the session (quit), waiting briefly, then ends the process. */
        void close() {
            try {
                out.write("quit\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                lines.poll(2, TimeUnit.SECONDS);
                out.close();
            } catch (IOException | InterruptedException e) {
                // gone already: the process is ended below
            }
            try {
                if (sock != null) {
                    sock.close();
                }
                if (proc != null && !proc.waitFor(5, TimeUnit.SECONDS)) {
                    proc.destroyForcibly();
                }
            } catch (IOException | InterruptedException e) {
                if (proc != null) {
                    proc.destroyForcibly();
                }
            }
            if (stderr != null && !keepStderr) {
                stderr.delete();
            }
        }
    }

    /** The resources the agent used in one game (see the class documentation). */
    static final class Usage {
        private final String colour;
        private final String name;
        private final double cpuLimit;
        private final double memoryLimit;
        private final String log;
        private final long pid;
        private final String started = Instant.now().toString();
        /** The log's lines of earlier games, kept when this game's line is written. */
        private final String earlier;
        private double javaCpu;
        private double childCpu;
        private long childPeakKB;
        private int calls;
        /** The agent's moves and those of them by the fallback, as serve -v reported them; -1: unknown. */
        private int ownMoves = -1;
        private int fallbackMoves = -1;

        Usage(Settings s, int n, String colour, String name, long pid, String log) {
            this.colour = colour;
            this.name = name;
            this.cpuLimit = s.cpuLimit(n);
            this.memoryLimit = s.memoryLimit;
            this.log = log;
            this.pid = pid;
            String before = "";
            if (log != null) {
                try {
                    before = new String(Files.readAllBytes(Paths.get(log)), StandardCharsets.UTF_8);
                } catch (NoSuchFileException e) {
                    // the first game
                } catch (IOException e) {
                    throw new ZerokitException("usage log " + log + ": " + e.getMessage());
                }
                if (!before.isEmpty() && !before.endsWith("\n")) {
                    before += "\n";
                }
            }
            earlier = before;
        }

        private static final Pattern GAME_LINE =
                Pattern.compile("(\\d+) own moves \\((\\d+) by the fallback[,)]");

        /** Reads the moves and fallback moves from serve -v's game lines in its stderr. */
        void games(String stderr) {
            Matcher m = GAME_LINE.matcher(stderr);
            while (m.find()) {
                ownMoves = Math.max(ownMoves, 0) + Integer.parseInt(m.group(1));
                fallbackMoves = Math.max(fallbackMoves, 0) + Integer.parseInt(m.group(2));
            }
        }

        /** Adds a call's Java CPU nanoseconds and reads the child's counters. */
        void measure(long javaNanos) {
            calls++;
            javaCpu += javaNanos / 1e9;
            if (pid > 0) {
                ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration())
                        .ifPresent(d -> childCpu = Math.max(childCpu, d.toNanos() / 1e9));
                childPeakKB = Math.max(childPeakKB, statusKB(pid, "VmHWM"));
            }
            write();
        }

        double cpuSeconds() {
            return childCpu + javaCpu;
        }

        double peakMB() {
            return childPeakKB / 1024.0;
        }

        /** A sentence naming an exceeded limit, or null. */
        String exceeded() {
            if (cpuLimit > 0 && cpuSeconds() > cpuLimit) {
                return String.format(Locale.ROOT, "used %.2f s of CPU, over the limit of %s s per game", cpuSeconds(), fmt(cpuLimit));
            }
            if (memoryLimit > 0 && peakMB() > memoryLimit) {
                return String.format(Locale.ROOT, "used %.1f MB of memory at its peak, over the limit of %s MB", peakMB(), fmt(memoryLimit));
            }
            return null;
        }

        String summary() {
            return String.format(Locale.ROOT, "%.2f s CPU (limit %s), peak memory %.1f MB (limit %s), %d calls, %s%s",
                    cpuSeconds(), cpuLimit > 0 ? fmt(cpuLimit) + " s" : "none",
                    peakMB(), memoryLimit > 0 ? fmt(memoryLimit) + " MB" : "none", calls,
                    fallbackMoves < 0 ? "fallback moves unknown"
                            : fallbackMoves + " of " + ownMoves + " own moves by the fallback",
                    pid > 0 ? "" : " (remote server: Java side only)");
        }

        private static String fmt(double d) {
            return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
        }

        /**
         * Writes this game's line of the usage log, if any: the file is
         * replaced by the earlier games' lines and this one. Players that
         * share one log must play one at a time ({colour}, {name} tell
         * two players of one referee apart).
         */
        void write() {
            if (log == null) {
                return;
            }
            String over = exceeded();
            String json = String.format(Locale.ROOT,
                    "{\"colour\": \"%s\", \"name\": \"%s\", \"started\": \"%s\", \"pid\": %d, \"calls\": %d, \"cpu_seconds\": %.3f, "
                            + "\"child_cpu_seconds\": %.3f, \"java_cpu_seconds\": %.3f, \"peak_memory_mb\": %.3f, "
                            + "\"measured_child\": %b, \"cpu_limit\": %s, \"memory_limit\": %s, \"exceeded\": %s, "
                            + "\"moves\": %s, \"fallback_moves\": %s}\n",
                    colour, jsonText(name), started, pid, calls, cpuSeconds(), childCpu, javaCpu, peakMB(), pid > 0,
                    fmt(cpuLimit), fmt(memoryLimit), over == null ? "null" : "\"" + jsonText(over) + "\"",
                    ownMoves < 0 ? "null" : String.valueOf(ownMoves),
                    fallbackMoves < 0 ? "null" : String.valueOf(fallbackMoves));
            json = earlier + json;
            Path path = Paths.get(log);
            Path tmp = Paths.get(log + "." + ProcessHandle.current().pid() + "." + colour + ".tmp");
            try {
                Files.write(tmp, json.getBytes(StandardCharsets.UTF_8));
                Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                throw new ZerokitException("usage log " + log + ": " + e.getMessage());
            }
        }

        private static String jsonText(String s) {
            return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
        }

        /** A "FIELD: N kB" value of /proc/PID/status, or 0. */
        private static long statusKB(long pid, String field) {
            try {
                for (String line : Files.readAllLines(Paths.get("/proc/" + pid + "/status"))) {
                    if (line.startsWith(field + ":")) {
                        return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // not Linux, or the process is gone: keep the last reading
            }
            return 0;
        }
    }
}
