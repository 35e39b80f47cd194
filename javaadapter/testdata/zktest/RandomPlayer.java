package zktest;

import aiproj.squatter.Move;
import aiproj.squatter.Piece;
import aiproj.squatter.Player;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A random Squatter player for zerokit's tests, with rules of its own: an
 * independent implementation of the specification (shared/rules/squatter.md,
 * decisions as in zerokit's env/squatter/rules.go), so that a game against
 * the zerokit player checks each side's moves, board and result against the
 * other's. It plays a uniformly random free cell, seeded by the system
 * property zktest.seed (plus its colour).
 *
 * With the system property zktest.illegal it plays one illegal move, then
 * plays on: "occupied" the opponent's last cell, "offboard" row N,
 * "wrongp" a free cell with the opponent's piece code, "captured" a captured
 * empty cell as soon as there is one.
 */
public class RandomPlayer implements Player, Piece {
    private int n;
    private int me;
    private int[][] piece; // 0, WHITE or BLACK
    private int[][] owner; // the territory's owner, or 0
    private Random rng;
    private String illegal;
    private Move last;

    @Override
    public int init(int n, int p) {
        this.n = n;
        me = p;
        piece = new int[n][n];
        owner = new int[n][n];
        rng = new Random(Long.getLong("zktest.seed", 1) * 31 + p);
        illegal = System.getProperty("zktest.illegal", "");
        return 0;
    }

    @Override
    public Move makeMove() {
        Move m = new Move();
        m.P = me;
        List<int[]> free = cells(true);
        List<int[]> captured = capturedEmpty();
        int[] cell = free.get(rng.nextInt(free.size()));
        boolean legal = true;
        switch (illegal) {
            case "occupied":
                if (last != null) {
                    cell = new int[] {last.Row, last.Col};
                    legal = false;
                }
                break;
            case "offboard":
                cell = new int[] {n, 0};
                legal = false;
                break;
            case "wrongp":
                m.P = 3 - me;
                legal = false;
                break;
            case "captured":
                if (!captured.isEmpty()) {
                    cell = captured.get(0);
                    legal = false;
                }
                break;
            default:
        }
        if (legal) {
            place(me, cell[0], cell[1]);
        } else {
            illegal = "";
        }
        m.Row = cell[0];
        m.Col = cell[1];
        return m;
    }

    @Override
    public int opponentMove(Move m) {
        int them = 3 - me;
        if (m.P != them || !on(m.Row, m.Col) || piece[m.Row][m.Col] != 0 || owner[m.Row][m.Col] != 0) {
            System.err.println("zktest.RandomPlayer rejects " + m.P + " " + m.Row + " " + m.Col);
            return -1;
        }
        place(them, m.Row, m.Col);
        last = m;
        return 0;
    }

    @Override
    public int getWinner() {
        if (!cells(true).isEmpty()) {
            return EMPTY;
        }
        int w = score(WHITE), b = score(BLACK);
        return w > b ? WHITE : b > w ? BLACK : DEAD;
    }

    @Override
    public void printBoard(PrintStream out) {
        for (int r = 0; r < n; r++) {
            StringBuilder s = new StringBuilder();
            for (int c = 0; c < n; c++) {
                char ch = piece[r][c] == WHITE ? 'W' : piece[r][c] == BLACK ? 'B' : owner[r][c] != 0 ? '-' : '+';
                if (piece[r][c] != 0 && owner[r][c] != 0) {
                    ch = Character.toLowerCase(ch);
                }
                s.append(c > 0 ? " " : "").append(ch);
            }
            out.println(s);
        }
    }

    private boolean on(int r, int c) {
        return r >= 0 && c >= 0 && r < n && c < n;
    }

    private int score(int p) {
        int s = 0;
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < n; c++) {
                if (owner[r][c] == p && piece[r][c] != p) {
                    s++;
                }
            }
        }
        return s;
    }

    /** The free cells (free) or the occupied ones, row by row. */
    private List<int[]> cells(boolean free) {
        List<int[]> out = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < n; c++) {
                if ((piece[r][c] == 0 && owner[r][c] == 0) == free) {
                    out.add(new int[] {r, c});
                }
            }
        }
        return out;
    }

    private List<int[]> capturedEmpty() {
        List<int[]> out = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < n; c++) {
                if (piece[r][c] == 0 && owner[r][c] != 0) {
                    out.add(new int[] {r, c});
                }
            }
        }
        return out;
    }

    private static final int[][] ORTH = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};

    /**
     * Places p's piece and captures for p: the cells that no orthogonal path
     * of cells other than p's live pieces links to the edge, less p's live
     * pieces next to such a path, split into orthogonally connected regions;
     * a region holding a cell that is not p's piece becomes p's territory.
     */
    private void place(int p, int row, int col) {
        piece[row][col] = p;
        boolean[][] wall = new boolean[n][n]; // p's live pieces
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < n; c++) {
                wall[r][c] = piece[r][c] == p && owner[r][c] == 0;
            }
        }
        boolean[][] outside = new boolean[n][n];
        List<int[]> stack = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < n; c++) {
                if ((r == 0 || c == 0 || r == n - 1 || c == n - 1) && !wall[r][c]) {
                    outside[r][c] = true;
                    stack.add(new int[] {r, c});
                }
            }
        }
        while (!stack.isEmpty()) {
            int[] x = stack.remove(stack.size() - 1);
            for (int[] d : ORTH) {
                int r = x[0] + d[0], c = x[1] + d[1];
                if (on(r, c) && !wall[r][c] && !outside[r][c]) {
                    outside[r][c] = true;
                    stack.add(new int[] {r, c});
                }
            }
        }
        boolean[][] enclosed = new boolean[n][n];
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < n; c++) {
                boolean edgeWall = wall[r][c] && (r == 0 || c == 0 || r == n - 1 || c == n - 1 || touches(outside, r, c));
                enclosed[r][c] = !outside[r][c] && !edgeWall;
            }
        }
        boolean[][] seen = new boolean[n][n];
        for (int r0 = 0; r0 < n; r0++) {
            for (int c0 = 0; c0 < n; c0++) {
                if (!enclosed[r0][c0] || seen[r0][c0]) {
                    continue;
                }
                List<int[]> region = new ArrayList<>();
                seen[r0][c0] = true;
                stack.add(new int[] {r0, c0});
                boolean worth = false;
                while (!stack.isEmpty()) {
                    int[] x = stack.remove(stack.size() - 1);
                    region.add(x);
                    worth |= piece[x[0]][x[1]] != p;
                    for (int[] d : ORTH) {
                        int r = x[0] + d[0], c = x[1] + d[1];
                        if (on(r, c) && enclosed[r][c] && !seen[r][c]) {
                            seen[r][c] = true;
                            stack.add(new int[] {r, c});
                        }
                    }
                }
                if (worth) {
                    for (int[] x : region) {
                        owner[x[0]][x[1]] = p;
                    }
                }
            }
        }
    }

    private boolean touches(boolean[][] set, int r, int c) {
        for (int[] d : ORTH) {
            int rr = r + d[0], cc = c + d[1];
            if (on(rr, cc) && set[rr][cc]) {
                return true;
            }
        }
        return false;
    }
}
