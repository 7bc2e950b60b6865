import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A Dungeon of Doom bot for the classic world, on Java's standard library only.
 *
 * <pre>
 *   java Starter.java --host 127.0.0.1 --port 40004 --name Ada --game duel
 * </pre>
 *
 * <p>It says EXTEND bot, JOIN &lt;game&gt; (with --game) and HELLO &lt;name&gt;, then, until
 * the server's final line (WIN, LOSE or BYE, which it prints and exits 0 on): LOOK, remember
 * what it saw, PICKUP the gold it stands on, and walk the shortest known path to the nearest
 * gold (to the nearest exit once it holds enough), or else to the nearest known square next
 * to one it has never seen. Errors go to stderr, with exit status 1. The replies are in
 * docs/protocol.md; README.md says how to enter it in dod-arena.
 */
public final class Starter {
    /** The four steps, tried in this order. */
    enum Step {
        N(-1, 0), E(0, 1), S(1, 0), W(0, -1);

        final int rows;
        final int columns;

        Step(int rows, int columns) {
            this.rows = rows;
            this.columns = columns;
        }
    }

    /** A square, relative to where the bot started. */
    record Square(int row, int column) {
        Square plus(Step step) {
            return new Square(row + step.rows, column + step.columns);
        }
    }

    /** The server's final line (WIN, LOSE or BYE): the game is over. */
    static final class GameOver extends Exception {
        GameOver(String line) {
            super(line);
        }
    }

    /** Something the bot cannot play on from. */
    static final class Failed extends Exception {
        Failed(String why) {
            super(why);
        }
    }

    /** The connection, a line at a time. */
    static final class Server {
        private final BufferedReader in;
        private final OutputStream out;

        Server(Socket socket) throws IOException {
            in = new BufferedReader(
                    new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            out = socket.getOutputStream();
        }

        /** The next line; a final line ends the game wherever it comes. */
        String readLine() throws IOException, GameOver, Failed {
            String line = in.readLine();
            if (line == null) {
                throw new Failed("the server closed the connection without a final line");
            }
            if (line.matches("(WIN|LOSE|BYE)( .*)?")) {
                throw new GameOver(line);
            }
            return line;
        }

        /** Send a command and read its one-line reply; ERROR ends the bot. */
        String ask(String command) throws IOException, GameOver, Failed {
            out.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            String reply = readLine();
            if (reply.startsWith("ERROR")) {
                throw new Failed(command + ": " + reply);
            }
            return reply;
        }

        List<String> look() throws IOException, GameOver, Failed {
            String header = ask("LOOK");
            if (!header.equals("LOOKREPLY")) {
                throw new Failed("LOOK: " + header);
            }
            List<String> rows = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                rows.add(readLine());
            }
            return rows;
        }
    }

    /** What the bot has seen, in squares relative to where it started. */
    static final class Memory {
        Square at = new Square(0, 0);
        final Map<Square, Character> tiles = new HashMap<>();

        void see(List<String> rows) {
            for (int r = 0; r < rows.size(); r++) {
                String line = rows.get(r);
                for (int c = 0; c < line.length(); c++) {
                    char tile = line.charAt(c);
                    if ("XPB".indexOf(tile) < 0) { // corners; a player hides the tile
                        tiles.put(new Square(at.row() + r - 2, at.column() + c - 2), tile);
                    }
                }
            }
        }

        char here() {
            return tiles.getOrDefault(at, '?');
        }

        boolean isOpen(Square square) {
            Character tile = tiles.get(square);
            return tile != null && tile != '#';
        }

        boolean isFrontier(Square square) {
            for (Step step : Step.values()) {
                if (!tiles.containsKey(square.plus(step))) {
                    return true;
                }
            }
            return false;
        }

        List<Step> openSteps() {
            List<Step> open = new ArrayList<>();
            for (Step step : Step.values()) {
                if (isOpen(at.plus(step))) {
                    open.add(step);
                }
            }
            return open;
        }

        /** The first step of a shortest walk over open squares to the nearest other square
         *  where goal holds; empty if none can be reached. */
        Optional<Step> firstStep(Predicate<Square> goal) {
            Map<Square, Step> first = new HashMap<>();
            first.put(at, null);
            ArrayDeque<Square> queue = new ArrayDeque<>(List.of(at));
            while (!queue.isEmpty()) {
                Square square = queue.removeFirst();
                if (!square.equals(at) && goal.test(square)) {
                    return Optional.of(first.get(square));
                }
                for (Step step : Step.values()) {
                    Square next = square.plus(step);
                    if (!first.containsKey(next) && isOpen(next)) {
                        first.put(next, square.equals(at) ? step : first.get(square));
                        queue.addLast(next);
                    }
                }
            }
            return Optional.empty();
        }
    }

    static void play(Server server, String name, String game)
            throws IOException, GameOver, Failed {
        server.ask("EXTEND bot"); // others see us as B
        if (game != null) {
            server.ask("JOIN " + game);
        }
        String hello = server.ask("HELLO " + name);
        if (!hello.startsWith("GOLD ")) {
            throw new Failed("HELLO: " + hello);
        }
        int goal = Integer.parseInt(hello.substring("GOLD ".length()));
        System.err.printf(
                "playing %s as %s: %d gold to win%n", game == null ? "default" : game, name, goal);
        Memory memory = new Memory();
        int gold = 0;
        int blocked = 0; // moves failed in a row: another player is in the way
        while (true) {
            memory.see(server.look());
            if (memory.here() == 'G') {
                String reply = server.ask("PICKUP"); // "SUCCESS, GOLD COINS: 2", or FAIL
                if (reply.startsWith("SUCCESS, GOLD COINS: ")) {
                    gold = Integer.parseInt(reply.substring("SUCCESS, GOLD COINS: ".length()));
                }
                memory.tiles.put(memory.at, '.');
                continue;
            }
            char wanted = gold >= goal ? 'E' : 'G';
            List<Step> open = memory.openSteps();
            Optional<Step> direction = memory
                    .firstStep(square -> memory.tiles.get(square) == wanted)
                    .or(() -> memory.firstStep(memory::isFrontier));
            if (direction.isEmpty() && wanted == 'E' && memory.here() == 'E' && !open.isEmpty()) {
                direction = Optional.of(open.get(0)); // step off the exit, then back
            }
            if (direction.isEmpty()) {
                System.err.println("seen everything reachable and cannot win: quitting");
                server.ask("QUIT"); // answered by the final line BYE
                throw new Failed("QUIT was not answered with BYE");
            }
            Step step = blocked > 0 ? open.get(blocked % open.size()) : direction.get();
            if (!server.ask("MOVE " + step).equals("SUCCESS")) {
                blocked++;
                continue;
            }
            blocked = 0;
            memory.at = memory.at.plus(step);
            if (memory.here() == 'E' && gold >= goal) {
                server.readLine(); // WIN
            }
        }
    }

    public static void main(String[] arguments) {
        Map<String, String> options = new HashMap<>(Map.of("--host", "127.0.0.1", "--port", "40004",
                "--name", "java-" + ProcessHandle.current().pid()));
        List<String> known = List.of("--host", "--port", "--name", "--game");
        for (int i = 0; i < arguments.length; i += 2) {
            if (!known.contains(arguments[i]) || i + 1 >= arguments.length) {
                System.err.println("usage: java Starter [--host H] [--port P] [--name N] [--game G]");
                System.exit(2);
            }
            options.put(arguments[i], arguments[i + 1]);
        }
        String host = options.get("--host");
        String port = options.get("--port");
        try (Socket socket = new Socket(host, Integer.parseInt(port))) {
            play(new Server(socket), options.get("--name"), options.get("--game"));
        } catch (GameOver over) {
            System.out.println(over.getMessage()); // WIN, LOSE or BYE, and why
            return;
        } catch (Failed failed) {
            System.err.println(failed.getMessage());
        } catch (IOException | NumberFormatException error) {
            System.err.println("cannot play on " + host + ":" + port + ": " + error);
        }
        System.exit(1);
    }
}
