// boardgame.io 0.50.2's server with tic-tac-toe (its tutorial's game), in-memory storage,
// socket.io transport: the peer `cargo xtask bench` compares `tenka serve` with.
// Usage: node bgio-server.js PORT (0: any free port); prints "bgio serving on PORT" once it listens.
'use strict';
const { Server } = require('boardgame.io/server');
const { INVALID_MOVE } = require('boardgame.io/core');

const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
const isVictory = (cells) => LINES.some(([a, b, c]) => cells[a] !== null && cells[a] === cells[b] && cells[a] === cells[c]);
const isDraw = (cells) => cells.every((cell) => cell !== null);

const TicTacToe = {
  name: 'tic-tac-toe',
  setup: () => ({ cells: Array(9).fill(null) }),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    clickCell: ({ G, playerID }, id) => {
      if (G.cells[id] !== null) return INVALID_MOVE;
      G.cells[id] = playerID;
    },
  },
  endIf: ({ G, ctx }) => {
    if (isVictory(G.cells)) return { winner: ctx.currentPlayer };
    if (isDraw(G.cells)) return { draw: true };
  },
};

const port = Number(process.argv[2] || 8000);
const server = Server({ games: [TicTacToe], origins: ['*'] });
server.run(port).then(({ appServer }) => console.log(`bgio serving on ${appServer.address().port}`));
