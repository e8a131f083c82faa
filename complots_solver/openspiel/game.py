"""Complots as an OpenSpiel game, registered as ``complots``.

A thin adapter over the compiled rules core (:mod:`complots_solver.rules.core`):
the state keeps the core's flat array plus, for every viewer, the observation
tokens it has received, from which information states are built.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from complots_solver.rules import core
from complots_solver.rules.config import DEFAULT_PARAMS, GameConfig
from complots_solver.rules.enums import (
    NUM_C1_ACTION_KINDS,
    NUM_C1_STAGES,
    NUM_CLANS,
    ActionKind,
    Context,
    Stage,
    TokenKind,
)
from complots_solver.rules.layout import (
    MAX_CHANCE_OUTCOMES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    S_ACT,
    S_ACTOR,
    S_BURIED,
    S_CHALLENGER,
    S_CLAIM,
    S_CLAIMANT,
    S_CLAIMED,
    S_COINS,
    S_COUNTER_CLAN,
    S_COUNTERER,
    S_COURT,
    S_CTX,
    S_CUR,
    S_HIDDEN,
    S_OUT,
    S_REVEALED,
    S_SHOWN,
    S_STAGE,
    S_TARGET,
    S_TREASURY,
    S_TURN,
    S_WINNER,
)
from complots_solver.rules.text import (
    action_to_string,
    chance_to_string,
    split_token,
    token_to_string,
)

GAME_SHORT_NAME = "complots"

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_SHORT_NAME,
    long_name="Complots (Coup)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
)


def game_info(config: GameConfig) -> pyspiel.GameInfo:
    """GameInfo built from a configuration."""
    return pyspiel.GameInfo(
        num_distinct_actions=config.num_distinct_actions(),
        max_chance_outcomes=MAX_CHANCE_OUTCOMES,
        num_players=config.players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=config.max_game_length(),
    )


class ComplotsGame(pyspiel.Game):
    """The Complots game for OpenSpiel (docs/rules.md sections 1-6)."""

    def __init__(self, params: dict | None = None) -> None:
        config = GameConfig.from_params(params)
        super().__init__(_GAME_TYPE, game_info(config), params or {})
        self.config = config
        self.cfg = config.to_array()

    def new_initial_state(self) -> ComplotsState:
        """The state before the deal."""
        return ComplotsState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> ComplotsObserver:
        """An observer for information states (perfect recall) or observations."""
        return ComplotsObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self, params
        )


class ComplotsState(pyspiel.State):
    """A Complots state: the core's flat array plus each viewer's tokens."""

    def __init__(self, game: ComplotsGame) -> None:
        super().__init__(game)
        self.config = game.config
        self.cfg = game.cfg
        self.s = core.initial_state(self.cfg)
        n = self.config.players
        # tokens[i] holds, for the i-th move, what each seat saw, then the public view.
        self.tokens: list[np.ndarray] = []
        self._token_buf = np.empty(n + 1, dtype=np.int64)
        self._legal_buf = np.empty(self.config.num_distinct_actions(), dtype=np.int32)

    # -- the OpenSpiel State interface --
    def current_player(self) -> int:
        """Seat to move, or pyspiel.PlayerId.CHANCE / TERMINAL."""
        return int(self.s[S_CUR])

    def _legal_actions(self, player: int) -> list[int]:
        k = core.legal_actions_into(self.s, self.cfg, self._legal_buf)
        return [int(a) for a in self._legal_buf[:k]]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, exact probability) pairs at a chance node."""
        outcomes = np.empty(MAX_CHANCE_OUTCOMES, dtype=np.int32)
        probs = np.empty(MAX_CHANCE_OUTCOMES, dtype=np.float64)
        k = core.chance_outcomes_into(self.s, self.cfg, outcomes, probs)
        return [(int(outcomes[i]), float(probs[i])) for i in range(k)]

    def _apply_action(self, action: int) -> None:
        if self.is_chance_node():
            allowed = [a for a, _ in self.chance_outcomes()]
        else:
            allowed = self._legal_actions(self.current_player())
        if action not in allowed:
            raise ValueError(
                f"action {action} is not legal here; legal actions: "
                + ", ".join(
                    f"{a} ({self._action_to_string(self.current_player(), a)})" for a in allowed
                )
            )
        core.observation_tokens_into(self.s, self.cfg, action, self._token_buf)
        self.tokens.append(self._token_buf.copy())
        core.apply_action(self.s, self.cfg, action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return chance_to_string(self.config, int(self.s[S_STAGE]), action)
        return action_to_string(self.config, action)

    def is_terminal(self) -> bool:
        """Whether the game is over (a win or the turn cap)."""
        return int(self.s[S_STAGE]) == Stage.TERMINAL

    def returns(self) -> list[float]:
        """Utilities: D-10 zero-sum, +1 winner, -1/(n-1) others; 0 each on a draw."""
        out = np.zeros(self.config.players, dtype=np.float64)
        core.returns_into(self.s, self.cfg, out)
        return [float(x) for x in out]

    def __str__(self) -> str:
        """Everything, hidden cards included (for debugging and playthroughs)."""
        cfg = self.config
        lines = [f"Stage {Stage(int(self.s[S_STAGE])).name}, turn {int(self.s[S_TURN])}"]
        for p in range(cfg.players):
            lines.append(
                f"P{p}: coins {int(self.s[S_COINS + p])}, "
                f"face down [{_cards(cfg, self.s, S_HIDDEN + p * NUM_CLANS)}], "
                f"face up [{_cards(cfg, self.s, S_REVEALED + p * NUM_CLANS)}]"
            )
        lines.append(f"Court [{_cards(cfg, self.s, S_COURT)}], treasury {int(self.s[S_TREASURY])}")
        if np.any(self.s[S_OUT : S_OUT + NUM_CLANS] > 0):
            lines.append(f"Out of game [{_cards(cfg, self.s, S_OUT)}]")
        pending = _pending(cfg, self.s)
        if pending:
            lines.append(pending)
        if self.is_terminal():
            w = int(self.s[S_WINNER])
            lines.append(f"Winner P{w}" if w >= 0 else "Draw (turn cap)")
        return "\n".join(lines)

    # -- helpers for observers and tools --
    def winner(self) -> int:
        """Winning seat, or -1 while none (or on a draw)."""
        return int(self.s[S_WINNER])

    def view_tokens(self, viewer: int, start: int = 0) -> list[int]:
        """Observation tokens of a seat (or the public view with viewer=-1), from move ``start``."""
        col = self.config.players if viewer < 0 else viewer
        return [int(t[col]) for t in self.tokens[start:]]


def _cards(cfg: GameConfig, s: np.ndarray, base: int) -> str:
    names = []
    for c in range(NUM_CLANS):
        names += [cfg.clan_name(c)] * int(s[base + c])
    return ", ".join(names)


def _pending(cfg: GameConfig, s: np.ndarray) -> str:
    """The announced action and its claims, as public text."""
    act = int(s[S_ACT])
    if act < 0 or int(s[S_STAGE]) in (Stage.TERMINAL, Stage.ACTION):
        return ""
    text = f"P{int(s[S_ACTOR])} announced {ActionKind(act).name.replace('_', ' ').title()}"
    if int(s[S_TARGET]) >= 0:
        text += f" on P{int(s[S_TARGET])}"
    if int(s[S_CLAIM]) >= 0:
        text += f" as {cfg.clan_name(int(s[S_CLAIM]))}"
    challenger = int(s[S_CHALLENGER])
    on_counter = int(s[S_CTX]) == Context.COUNTER
    if challenger >= 0 and not on_counter:
        text += f"; challenged by P{challenger}"
    if int(s[S_COUNTERER]) >= 0:
        text += f"; countered by P{int(s[S_COUNTERER])} as {cfg.clan_name(int(s[S_COUNTER_CLAN]))}"
    if challenger >= 0 and on_counter:
        text += f"; counter challenged by P{challenger}"
    if int(s[S_STAGE]) == Stage.CLAIM_CHALLENGE:  # Complots 2 co-claim or Sorciere claim
        text += f"; P{int(s[S_CLAIMANT])} claims {cfg.clan_name(int(s[S_CLAIMED]))}"
    return text


class ComplotsObserver:
    """Observer built from named pieces, following docs/rules.md section 6.

    Perfect recall (information states): the current view plus the viewer's
    token history. Otherwise (observations): the current view only. Private
    information: SINGLE_PLAYER shows the viewer's own cards (and the card shown
    to them by Examine); ALL_PLAYERS shows every hand; NONE shows none.
    """

    def __init__(self, iig_obs_type, game: ComplotsGame, params: dict | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        cfg = game.config
        self.config = cfg
        self.iig_obs_type = iig_obs_type
        n = cfg.players
        private = iig_obs_type.private_info
        self.single = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.all_players = private == pyspiel.PrivateInfoType.ALL_PLAYERS
        self.perfect_recall = iig_obs_type.perfect_recall
        # Complots 1 line-ups keep their tensor layout; Complots 2 sets add stages and kinds.
        stages = len(Stage) if cfg.extended else NUM_C1_STAGES
        kinds = len(ActionKind) if cfg.extended else NUM_C1_ACTION_KINDS
        pieces = [("player", n), ("to_move", n + 1), ("stage", stages)]
        if iig_obs_type.public_info:
            pieces += [
                ("coins", n),
                ("treasury", 1),
                ("turn", 1),
                ("face_up", n * NUM_CLANS),
                ("face_down_count", n),
                ("actor", n),
                ("action", kinds),
                ("target", n),
                ("claim", NUM_CLANS),
                ("challenger", n),
                ("counterer", n),
                ("counter_claim", NUM_CLANS),
            ]
            if cfg.extended:
                pieces += [("lost_face_down", n)]
        if self.single:
            pieces += [("hand", NUM_CLANS), ("examined", NUM_CLANS)]
        if self.all_players:
            pieces += [("hands", n * NUM_CLANS)]
        if self.perfect_recall:
            pieces += [("history", cfg.max_game_length())]
        size = sum(s for _, s in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        i = 0
        for name, length in pieces:
            self.dict[name] = self.tensor[i : i + length]
            i += length

    def set_from(self, state: ComplotsState, player: int) -> None:
        """Fill the tensor with `state` as seen by `player`."""
        t = self.dict
        s = state.s
        n = self.config.players
        self.tensor.fill(0)
        t["player"][player] = 1
        cur = int(s[S_CUR])
        t["to_move"][cur if cur >= 0 else n] = 1
        t["stage"][int(s[S_STAGE])] = 1
        if "coins" in t:
            t["coins"][:] = s[S_COINS : S_COINS + n]
            t["treasury"][0] = s[S_TREASURY]
            t["turn"][0] = s[S_TURN]
            t["face_up"][:] = s[S_REVEALED : S_REVEALED + n * NUM_CLANS]
            hidden = s[S_HIDDEN : S_HIDDEN + n * NUM_CLANS].reshape(n, NUM_CLANS)
            t["face_down_count"][:] = hidden.sum(axis=1)
            for name, field in (
                ("actor", S_ACTOR),
                ("target", S_TARGET),
                ("challenger", S_CHALLENGER),
                ("counterer", S_COUNTERER),
            ):
                if s[field] >= 0 and s[S_ACT] >= 0:
                    t[name][int(s[field])] = 1
            if s[S_ACT] >= 0:
                t["action"][int(s[S_ACT])] = 1
            if s[S_CLAIM] >= 0:
                t["claim"][int(s[S_CLAIM])] = 1
            if s[S_COUNTER_CLAN] >= 0:
                t["counter_claim"][int(s[S_COUNTER_CLAN])] = 1
            if "lost_face_down" in t:
                buried = s[S_BURIED : S_BURIED + n * NUM_CLANS].reshape(n, NUM_CLANS)
                t["lost_face_down"][:] = buried.sum(axis=1)
        if "hand" in t:
            t["hand"][:] = s[S_HIDDEN + player * NUM_CLANS : S_HIDDEN + (player + 1) * NUM_CLANS]
            shown = _examined(s, player)
            if shown >= 0:
                t["examined"][shown] = 1
        if "hands" in t:
            t["hands"][:] = s[S_HIDDEN : S_HIDDEN + n * NUM_CLANS]
        if "history" in t:
            tokens = self._history(state, player)
            t["history"][: len(tokens)] = np.asarray(tokens, dtype=np.float32) + 1

    def string_from(self, state: ComplotsState, player: int) -> str:
        """`state` as seen by `player`, as text."""
        cfg = self.config
        s = state.s
        n = cfg.players
        parts = [f"P{player}"]
        if self.single:
            parts.append(f"hand [{_cards(cfg, s, S_HIDDEN + player * NUM_CLANS)}]")
            shown = _examined(s, player)
            if shown >= 0:
                parts.append(f"examined {cfg.clan_name(shown)}")
        if self.all_players:
            parts.append(
                "hands "
                + " | ".join(f"P{p} [{_cards(cfg, s, S_HIDDEN + p * NUM_CLANS)}]" for p in range(n))
            )
        if self.iig_obs_type.public_info:
            coins = " ".join(str(int(s[S_COINS + p])) for p in range(n))
            parts.append(f"coins {coins} treasury {int(s[S_TREASURY])} turn {int(s[S_TURN])}")
            faceup = " | ".join(
                f"P{p} [{_cards(cfg, s, S_REVEALED + p * NUM_CLANS)}]" for p in range(n)
            )
            parts.append(f"face up {faceup}")
            if cfg.extended:  # Sorciere claims: cards lost face down (which ones is private)
                buried = s[S_BURIED : S_BURIED + n * NUM_CLANS].reshape(n, NUM_CLANS).sum(axis=1)
                if buried.any():
                    parts.append("lost face down " + " ".join(str(int(b)) for b in buried))
            parts.append(f"stage {Stage(int(s[S_STAGE])).name}")
            cur = int(s[S_CUR])
            if cur >= 0:
                parts.append(f"to move P{cur}")
            pending = _pending(cfg, s)
            if pending:
                parts.append(pending)
        text = "; ".join(parts)
        if self.perfect_recall:
            history = ", ".join(token_to_string(cfg, tok) for tok in self._history(state, player))
            text += f"\nhistory: {history}"
        return text

    def _history(self, state: ComplotsState, player: int) -> list[int]:
        if self.all_players:
            # Everything is seen: each mover's own view of its move reveals it.
            return [int(tok[_mover_col(tok, state)]) for tok in state.tokens]
        if self.single:
            return state.view_tokens(player)
        return state.view_tokens(-1)


def _mover_col(tokens: np.ndarray, state: ComplotsState) -> int:
    """Column of the token that shows the most (a private one if any)."""
    for col in range(state.config.players):
        if split_token(int(tokens[col]))[0] == TokenKind.PRIVATE:
            return col
    return state.config.players


def _examined(s: np.ndarray, player: int) -> int:
    """Clan shown by the Examine target, if `player` saw it and it is pending."""
    if int(s[S_STAGE]) != Stage.EXAMINE_DECIDE or int(s[S_SHOWN]) < 0:
        return -1
    if player in (int(s[S_ACTOR]), int(s[S_TARGET])):
        return int(s[S_SHOWN])
    return -1


pyspiel.register_game(_GAME_TYPE, ComplotsGame)
