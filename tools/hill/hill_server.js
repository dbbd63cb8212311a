// D. N. Hill's JSMinesweeper solver, asked over pipes: one JSON request per line on stdin,
// one JSON reply per line on stdout. Run by hill.py; see README.md.
//
//   node hill_server.js CHECKOUT
//
// The solver's browser scripts are read from CHECKOUT (a work tree of
// github.com/DavidNHill/JSMinesweeper at the commit hill.py pins) and run unchanged in one
// vm context, with the few page functions they call (showMessage, sleep) stubbed. Nothing of them
// is copied here.
//
// Requests (cells are flat indices row * width + col, as minelab and the solver both number
// them):
//   {"op": "play", "width", "height", "mines", "layout": [mine cells], "first": cell}
//       plays one whole game on that layout from the first click, the way the solver's own
//       bulk run plays (main.js bulkRun: no flags, full probability, advanced guessing;
//       every certain clear of a reply is played, a guess ends the reply);
//       reply {"won", "clicks", "guesses": [[cell, safety], ...], "ms"}
//   {"op": "analyse", "width", "height", "mines", "view": [cell codes]}
//       the solver's move in one position: view codes as minelab's (-1 covered, -2 flagged,
//       which is taken as covered, 0..8 revealed); reply {"actions": [[cell, kind, safety],
//       ...] (kind 1 clear, 2 flag, 3 chord), "safety": [per cell, null if revealed],
//       "message": the page's message line after the call (the solver says there which of
//       its steps made the move), "ms"}
//   {"op": "quit"}
"use strict";

const fs = require("fs");
const path = require("path");
const vm = require("vm");
const readline = require("readline");

const SCRIPTS = [
    "Minesweeper/client/Board.js",
    "Minesweeper/client/Tile.js",
    "Minesweeper/client/solver_main.js",
    "Minesweeper/client/solver_probability_engine.js",
    "Minesweeper/client/Brute_force.js",
    "Minesweeper/client/BruteForceAnalysis.js",
    "Minesweeper/client/MinesweeperGame.js",
    "Minesweeper/client/SolutionCounter.js",
    "Minesweeper/client/EfficiencyHelper.js",
    "Minesweeper/client/FiftyFiftyHelper.js",
    "Minesweeper/client/LongTermRiskHelper.js",
    "Minesweeper/Utility/PrimeSieve.js",
    "Minesweeper/Utility/Binomial.js",
];

const PAGE = "Minesweeper/client/main.js";

// What this file runs inside the solver's context (its globals are visible there only).
const DRIVER = `
"use strict";
// main.js's page state that the solver reads: the player's defaults (not the analyser's,
// not the old random number generator), and the binomial cache it builds on load
var analysisMode = false;
var oldrng = false;
// the page's current board: LongTermRiskHelper reads its size from this global, so it is
// set to the board being solved before each call
var board = null;
// the page's sleep lets the browser repaint during a long analysis; nothing here needs a turn
async function sleep(msec) {}
solver(null, null);  // the page's initialisation request: sets solver.countSolutions
var binomialCache = new BinomialCache(5000, 500, new Binomial(MAX_BINOMIAL_N, 500));

function bulkOptions() {
    return {playStyle: PLAY_STYLE_NOFLAGS, verbose: false, advancedGuessing: true,
            fullProbability: true, hardcore: false};
}

function mineArray(width, height, mines, layout) {
    const array = [width, height, mines];
    for (const cell of layout) {
        array.push(cell % width, Math.floor(cell / width));
    }
    return array;
}

async function playGame(req) {
    const {width, height, mines, layout, first} = req;
    const game = new ServerGame(0, width, height, mines, first, 0, "safe");
    game.resetMinesUsingArray(mineArray(width, height, mines, layout));
    board = new Board(0, width, height, mines, 0, "safe");
    const options = bulkOptions();
    const guesses = [];
    let clicks = 1;
    let revealed = game.clickTile(game.getTile(first));
    if (revealed.header.status == IN_PLAY) {
        applyResults(board, revealed);
    }
    let loops = 0;
    while (revealed.header.status == IN_PLAY) {
        if (++loops > 10000) {
            throw new Error("no progress after 10000 solver calls");
        }
        const reply = await solver(board, options);
        const actions = reply.actions;
        if (actions.length == 0) {
            throw new Error("the solver returned no action");
        }
        for (let i = 0; i < actions.length; i++) {
            const action = actions[i];
            if (action.action != ACTION_CLEAR) {
                continue;
            }
            if (i == 0 || action.prob == 1) {
                const cell = board.xy_to_index(action.x, action.y);
                if (action.prob != 1) {
                    guesses.push([cell, action.prob]);
                }
                clicks++;
                revealed = game.clickTile(game.getTile(cell));
                if (revealed.header.status != IN_PLAY) {
                    break;
                }
                applyResults(board, revealed);
            }
            if (action.prob != 1) {
                break;
            }
        }
    }
    return {won: revealed.header.status == WON, clicks: clicks, guesses: guesses};
}

async function analyse(req) {
    const {width, height, mines, view} = req;
    board = new Board(0, width, height, mines, 0, "safe");
    for (let i = 0; i < view.length; i++) {
        if (view[i] >= 0) {
            board.getTile(i).setValue(view[i]);
        }
    }
    shownMessage.text = "";
    const reply = await solver(board, bulkOptions());
    const actions = reply.actions.map(a => [board.xy_to_index(a.x, a.y), a.action, a.prob]);
    const safety = board.tiles.map(t => (t.isCovered() ? t.probability : null));
    return {actions: actions, safety: safety, message: shownMessage.text};
}

async function handle(req) {
    if (req.op == "play") {
        return playGame(req);
    }
    if (req.op == "analyse") {
        return analyse(req);
    }
    throw new Error("unknown op " + JSON.stringify(req.op));
}
`;

function loadSolver(checkout) {
    const quiet = {log: () => {}, info: () => {}, warn: () => {}, error: (...a) => process.stderr.write(a.join(" ") + "\n")};
    // the page's message line: the last non-empty text the solver showed (read by analyse)
    const shown = {text: ""};
    const showMessage = (text) => {
        if (text) {
            shown.text = String(text);
        }
    };
    const context = vm.createContext({console: quiet, showMessage: showMessage, performance: performance});
    context.shownMessage = shown;
    for (const rel of SCRIPTS) {
        const file = path.join(checkout, rel);
        vm.runInContext(fs.readFileSync(file, "utf8"), context, {filename: file});
    }
    // main.js (the page: canvas, buttons) cannot run here; the solver reads its constants,
    // so its top-level constants of a literal value are taken from it as they are
    const main = fs.readFileSync(path.join(checkout, PAGE), "utf8");
    const literal = /^const ([A-Z][A-Z0-9_]*) = (-?[0-9.]+|"[^"]*"|true|false);/gm;
    for (const m of main.matchAll(literal)) {
        vm.runInContext(`var ${m[1]} = ${m[2]};`, context, {filename: PAGE});
    }
    vm.runInContext(DRIVER, context, {filename: "hill_server.js (driver)"});
    return context;
}

async function main() {
    const checkout = process.argv[2];
    if (!checkout) {
        process.stderr.write("usage: node hill_server.js CHECKOUT\n");
        process.exit(2);
    }
    const context = loadSolver(checkout);
    const handle = vm.runInContext("handle", context);
    const lines = readline.createInterface({input: process.stdin, terminal: false});
    for await (const line of lines) {
        if (!line.trim()) {
            continue;
        }
        let reply;
        try {
            const req = JSON.parse(line);
            if (req.op == "quit") {
                break;
            }
            const start = process.hrtime.bigint();
            reply = await handle(req);
            reply.ms = Number(process.hrtime.bigint() - start) / 1e6;
        } catch (err) {
            reply = {error: String(err && err.stack ? err.stack : err)};
        }
        process.stdout.write(JSON.stringify(reply) + "\n");
    }
}

main();
