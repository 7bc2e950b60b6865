// A Dungeon of Doom bot for the classic world, on Go's standard library only.
//
//	go build -o starter main.go
//	./starter --host 127.0.0.1 --port 40004 --name Ada --game duel
//
// It says EXTEND bot, JOIN <game> (with --game) and HELLO <name>, then, until the
// server's final line (WIN, LOSE or BYE, which it prints and exits 0 on): LOOK,
// remember what it saw, PICKUP the gold it stands on, and walk the shortest known path
// to the nearest gold (to the nearest exit once it holds enough), or else to the nearest
// known square next to one it has never seen. Errors go to stderr, with exit status 1.
// The replies are in docs/protocol.md; README.md says how to enter it in dod-arena.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

type square struct{ row, column int }

type step struct {
	name string
	row  int
	col  int
}

// The four steps, tried in this order.
var steps = []step{{"N", -1, 0}, {"E", 0, 1}, {"S", 1, 0}, {"W", 0, -1}}

func (s square) plus(d step) square { return square{s.row + d.row, s.column + d.col} }

// finalLine is the server's final line (WIN, LOSE or BYE): the game is over.
type finalLine struct{ line string }

func (f finalLine) Error() string { return f.line }

// server is the connection, read a line at a time.
type server struct {
	conn   net.Conn
	reader *bufio.Reader
}

// readLine returns the next line; a final line ends the game wherever it comes.
func (s *server) readLine() (string, error) {
	line, err := s.reader.ReadString('\n')
	if err != nil {
		return "", errors.New("the server closed the connection without a final line")
	}
	line = strings.TrimRight(line, "\r\n")
	for _, final := range []string{"WIN", "LOSE", "BYE"} {
		if line == final || strings.HasPrefix(line, final+" ") {
			return "", finalLine{line}
		}
	}
	return line, nil
}

// ask sends a command and reads its one-line reply; ERROR is an error.
func (s *server) ask(command string) (string, error) {
	if _, err := fmt.Fprintf(s.conn, "%s\n", command); err != nil {
		if _, closed := s.readLine(); closed != nil {
			return "", closed // the server closed: its final line says why
		}
		return "", err
	}
	reply, err := s.readLine()
	if err == nil && strings.HasPrefix(reply, "ERROR") {
		err = fmt.Errorf("%s: %s", command, reply)
	}
	return reply, err
}

func (s *server) look() ([]string, error) {
	header, err := s.ask("LOOK")
	if err == nil && header != "LOOKREPLY" {
		err = fmt.Errorf("LOOK: %s", header)
	}
	rows := make([]string, 5)
	for i := range rows {
		if err == nil {
			rows[i], err = s.readLine()
		}
	}
	return rows, err
}

// memory is what the bot has seen, in squares relative to where it started.
type memory struct {
	at    square
	tiles map[square]byte
}

func (m *memory) see(rows []string) {
	for r, line := range rows {
		for c := 0; c < len(line); c++ {
			if strings.IndexByte("XPB", line[c]) < 0 { // corners; a player hides the tile
				m.tiles[square{m.at.row + r - 2, m.at.column + c - 2}] = line[c]
			}
		}
	}
}

func (m *memory) isOpen(s square) bool {
	tile, seen := m.tiles[s]
	return seen && tile != '#'
}

func (m *memory) isFrontier(s square) bool {
	for _, d := range steps {
		if _, seen := m.tiles[s.plus(d)]; !seen {
			return true
		}
	}
	return false
}

// firstStep is the first step of a shortest walk over open squares to the nearest
// other square where goal holds; false if none can be reached.
func (m *memory) firstStep(goal func(square) bool) (step, bool) {
	first := map[square]step{}
	visited := map[square]bool{m.at: true}
	queue := []square{m.at}
	for head := 0; head < len(queue); head++ {
		here := queue[head]
		if head > 0 && goal(here) {
			return first[here], true
		}
		for _, d := range steps {
			next := here.plus(d)
			if !visited[next] && m.isOpen(next) {
				visited[next] = true
				first[next] = d
				if head > 0 {
					first[next] = first[here]
				}
				queue = append(queue, next)
			}
		}
	}
	return step{}, false
}

func play(s *server, name, game string) error {
	if _, err := s.ask("EXTEND bot"); err != nil { // others see us as B
		return err
	}
	if game != "" {
		if _, err := s.ask("JOIN " + game); err != nil {
			return err
		}
	}
	reply, err := s.ask("HELLO " + name)
	if err != nil {
		return err
	}
	goal, err := strconv.Atoi(strings.TrimPrefix(reply, "GOLD "))
	if err != nil {
		return fmt.Errorf("HELLO: %s", reply)
	}
	fmt.Fprintf(os.Stderr, "playing %s as %s: %d gold to win\n", orDefault(game), name, goal)
	m := &memory{tiles: map[square]byte{}}
	gold, blocked := 0, 0 // blocked: moves failed in a row (another player in the way)
	for {
		rows, err := s.look()
		if err != nil {
			return err
		}
		m.see(rows)
		if m.tiles[m.at] == 'G' {
			reply, err := s.ask("PICKUP") // "SUCCESS, GOLD COINS: 2", or FAIL
			if err != nil {
				return err
			}
			if strings.HasPrefix(reply, "SUCCESS, GOLD COINS: ") {
				gold, _ = strconv.Atoi(strings.TrimPrefix(reply, "SUCCESS, GOLD COINS: "))
			}
			m.tiles[m.at] = '.'
			continue
		}
		wanted := byte('G')
		if gold >= goal {
			wanted = 'E'
		}
		direction, found := m.firstStep(func(s square) bool { return m.tiles[s] == wanted })
		if !found {
			direction, found = m.firstStep(m.isFrontier)
		}
		var open []step
		for _, d := range steps {
			if m.isOpen(m.at.plus(d)) {
				open = append(open, d)
			}
		}
		if !found && wanted == 'E' && m.tiles[m.at] == 'E' && len(open) > 0 {
			direction, found = open[0], true // step off the exit, then back
		}
		if !found {
			fmt.Fprintln(os.Stderr, "seen everything reachable and cannot win: quitting")
			if _, err := s.ask("QUIT"); err != nil { // answered by the final line BYE
				return err
			}
			return errors.New("QUIT was not answered with BYE")
		}
		if blocked > 0 {
			direction = open[blocked%len(open)]
		}
		reply, err = s.ask("MOVE " + direction.name)
		if err != nil {
			return err
		}
		if reply != "SUCCESS" {
			blocked++
			continue
		}
		blocked = 0
		m.at = m.at.plus(direction)
		if m.tiles[m.at] == 'E' && gold >= goal {
			if _, err := s.readLine(); err != nil { // WIN
				return err
			}
		}
	}
}

func orDefault(game string) string {
	if game == "" {
		return "default"
	}
	return game
}

func main() {
	host := flag.String("host", "127.0.0.1", "server address")
	port := flag.Int("port", 40004, "server port")
	name := flag.String("name", fmt.Sprintf("go-%d", os.Getpid()), "player name")
	game := flag.String("game", "", "JOIN this game first (default: the default game)")
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	address := net.JoinHostPort(*host, strconv.Itoa(*port))
	conn, err := net.Dial("tcp", address)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot connect to %s: %v\n", address, err)
		os.Exit(1)
	}
	defer conn.Close()
	err = play(&server{conn, bufio.NewReader(conn)}, *name, *game)
	var final finalLine
	if errors.As(err, &final) {
		fmt.Println(final.line) // WIN, LOSE or BYE, and why
		return
	}
	fmt.Fprintln(os.Stderr, err)
	conn.Close()
	os.Exit(1)
}
