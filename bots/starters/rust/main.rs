//! A Dungeon of Doom bot for the classic world, on Rust's standard library only.
//!
//!     rustc -O --edition 2021 -o starter main.rs
//!     ./starter --host 127.0.0.1 --port 40004 --name Ada --game duel
//!
//! It says EXTEND bot, JOIN <game> (with --game) and HELLO <name>, then, until the
//! server's final line (WIN, LOSE or BYE, which it prints and exits 0 on): LOOK,
//! remember what it saw, PICKUP the gold it stands on, and walk the shortest known path
//! to the nearest gold (to the nearest exit once it holds enough), or else to the nearest
//! known square next to one it has never seen. Errors go to stderr, with exit status 1.
//! The replies are in docs/protocol.md; README.md says how to enter it in dod-arena.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::ExitCode;

/// A square, relative to where the bot started: (row, column).
type Square = (i64, i64);

/// The four steps, tried in this order.
const STEPS: [(&str, i64, i64); 4] = [("N", -1, 0), ("E", 0, 1), ("S", 1, 0), ("W", 0, -1)];

fn plus(square: Square, step: usize) -> Square {
    (square.0 + STEPS[step].1, square.1 + STEPS[step].2)
}

/// Why the game stopped: the server's final line (WIN, LOSE or BYE), or an error.
enum End {
    Over(String),
    Failed(String),
}

impl From<std::io::Error> for End {
    fn from(error: std::io::Error) -> Self {
        End::Failed(format!("the connection failed: {error}"))
    }
}

/// The connection, a line at a time.
struct Server {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Server {
    /// The next line; a final line ends the game wherever it comes.
    fn read_line(&mut self) -> Result<String, End> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(End::Failed(
                "the server closed the connection without a final line".into(),
            ));
        }
        let line = line.trim_end_matches(&['\r', '\n'][..]).to_string();
        let word = line.split(' ').next().unwrap_or("");
        if ["WIN", "LOSE", "BYE"].contains(&word) {
            return Err(End::Over(line));
        }
        Ok(line)
    }

    /// Send a command and read its one-line reply; ERROR ends the bot.
    fn ask(&mut self, command: &str) -> Result<String, End> {
        if let Err(error) = self.writer.write_all(format!("{command}\n").as_bytes()) {
            self.read_line()?; // the server closed: its final line says why
            return Err(error.into());
        }
        let reply = self.read_line()?;
        if reply.starts_with("ERROR") {
            return Err(End::Failed(format!("{command}: {reply}")));
        }
        Ok(reply)
    }

    fn look(&mut self) -> Result<Vec<String>, End> {
        let header = self.ask("LOOK")?;
        if header != "LOOKREPLY" {
            return Err(End::Failed(format!("LOOK: {header}")));
        }
        (0..5).map(|_| self.read_line()).collect()
    }
}

/// What the bot has seen, in squares relative to where it started.
struct Memory {
    at: Square,
    tiles: HashMap<Square, u8>,
}

impl Memory {
    fn see(&mut self, rows: &[String]) {
        for (r, line) in rows.iter().enumerate() {
            for (c, &tile) in line.as_bytes().iter().enumerate() {
                if !b"XPB".contains(&tile) {
                    // (corners are always X; a player hides the tile under it)
                    let square = (self.at.0 + r as i64 - 2, self.at.1 + c as i64 - 2);
                    self.tiles.insert(square, tile);
                }
            }
        }
    }

    fn tile(&self, square: Square) -> Option<u8> {
        self.tiles.get(&square).copied()
    }

    fn is_open(&self, square: Square) -> bool {
        matches!(self.tile(square), Some(tile) if tile != b'#')
    }

    fn is_frontier(&self, square: Square) -> bool {
        (0..4).any(|step| self.tile(plus(square, step)).is_none())
    }

    /// The first step of a shortest walk over open squares to the nearest other square
    /// where `goal` holds; `None` if none can be reached.
    fn first_step(&self, goal: impl Fn(Square) -> bool) -> Option<usize> {
        let mut first: HashMap<Square, usize> = HashMap::new();
        let mut queue = VecDeque::from([self.at]);
        while let Some(square) = queue.pop_front() {
            if square != self.at && goal(square) {
                return first.get(&square).copied();
            }
            for step in 0..4 {
                let next = plus(square, step);
                if next != self.at && !first.contains_key(&next) && self.is_open(next) {
                    let walk = if square == self.at {
                        step
                    } else {
                        first[&square]
                    };
                    first.insert(next, walk);
                    queue.push_back(next);
                }
            }
        }
        None
    }
}

/// Plays until the game ends, which is always an `End`.
fn play(server: &mut Server, name: &str, game: Option<&str>) -> Result<Infallible, End> {
    server.ask("EXTEND bot")?; // others see us as B
    if let Some(game) = game {
        server.ask(&format!("JOIN {game}"))?;
    }
    let hello = server.ask(&format!("HELLO {name}"))?;
    let goal: u32 = match hello.strip_prefix("GOLD ").map(str::parse) {
        Some(Ok(goal)) => goal,
        _ => return Err(End::Failed(format!("HELLO: {hello}"))),
    };
    eprintln!(
        "playing {} as {name}: {goal} gold to win",
        game.unwrap_or("default")
    );
    let mut memory = Memory {
        at: (0, 0),
        tiles: HashMap::new(),
    };
    let mut gold = 0;
    let mut blocked = 0; // moves failed in a row: another player is in the way
    loop {
        let rows = server.look()?;
        memory.see(&rows);
        if memory.tile(memory.at) == Some(b'G') {
            let reply = server.ask("PICKUP")?; // "SUCCESS, GOLD COINS: 2", or FAIL
            if let Some(total) = reply.strip_prefix("SUCCESS, GOLD COINS: ") {
                gold = total.parse().unwrap_or(gold);
            }
            memory.tiles.insert(memory.at, b'.');
            continue;
        }
        let wanted = if gold >= goal { b'E' } else { b'G' };
        let open: Vec<usize> = (0..4)
            .filter(|&step| memory.is_open(plus(memory.at, step)))
            .collect();
        let mut direction = memory
            .first_step(|square| memory.tile(square) == Some(wanted))
            .or_else(|| memory.first_step(|square| memory.is_frontier(square)));
        if direction.is_none() && wanted == b'E' && memory.tile(memory.at) == Some(b'E') {
            direction = open.first().copied(); // step off the exit, then back
        }
        let step = match direction {
            Some(_) if blocked > 0 => open[blocked % open.len()],
            Some(step) => step,
            None => {
                eprintln!("seen everything reachable and cannot win: quitting");
                server.ask("QUIT")?; // answered by the final line BYE
                return Err(End::Failed("QUIT was not answered with BYE".into()));
            }
        };
        if server.ask(&format!("MOVE {}", STEPS[step].0))? != "SUCCESS" {
            blocked += 1;
            continue;
        }
        blocked = 0;
        memory.at = plus(memory.at, step);
        if memory.tile(memory.at) == Some(b'E') && gold >= goal {
            server.read_line()?; // WIN
        }
    }
}

fn main() -> ExitCode {
    let mut host = "127.0.0.1".to_string();
    let mut port = "40004".to_string();
    let mut name = format!("rust-{}", std::process::id());
    let mut game = None;
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    for pair in arguments.chunks(2) {
        let value = match pair {
            [_, value] => value.clone(),
            _ => String::new(),
        };
        match pair[0].as_str() {
            "--host" if !value.is_empty() => host = value,
            "--port" if !value.is_empty() => port = value,
            "--name" if !value.is_empty() => name = value,
            "--game" if !value.is_empty() => game = Some(value),
            _ => {
                eprintln!("usage: starter [--host H] [--port P] [--name N] [--game G]");
                return ExitCode::from(2);
            }
        }
    }
    let stream = match TcpStream::connect(format!("{host}:{port}")) {
        Ok(stream) => stream,
        Err(error) => {
            eprintln!("cannot connect to {host}:{port}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let reader = match stream.try_clone() {
        Ok(reading) => BufReader::new(reading),
        Err(error) => {
            eprintln!("cannot read from {host}:{port}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut server = Server {
        reader,
        writer: stream,
    };
    match play(&mut server, &name, game.as_deref()) {
        Err(End::Over(line)) => {
            println!("{line}"); // WIN, LOSE or BYE, and why
            ExitCode::SUCCESS
        }
        Err(End::Failed(why)) => {
            eprintln!("{why}");
            ExitCode::FAILURE
        }
        Ok(never) => match never {},
    }
}
