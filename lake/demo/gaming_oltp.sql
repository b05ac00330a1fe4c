-- gaming_oltp: the schema of the SCD2 pipeline in lake/demo.sh, and its simulator.
-- dim_user, dim_game, dim_session are dimensions (SCD2 in the lake),
-- fact_game_event holds facts (appended).
CREATE SCHEMA gaming_oltp;
SET search_path = gaming_oltp;

CREATE TABLE dim_user (
	user_id bigint PRIMARY KEY,
	username text NOT NULL,
	email text,
	country char(2),
	level int NOT NULL DEFAULT 1,
	balance numeric(12,2) NOT NULL DEFAULT 0,
	signed_up date NOT NULL DEFAULT current_date,
	updated_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE dim_game (
	game_id int PRIMARY KEY,
	title text NOT NULL,
	genre text,
	price numeric(6,2));
CREATE TABLE dim_session (
	session_id bigint PRIMARY KEY,
	user_id bigint NOT NULL,
	game_id int NOT NULL,
	status text NOT NULL,
	started_at timestamptz NOT NULL,
	ended_at timestamptz);
CREATE TABLE fact_game_event (
	event_id bigserial PRIMARY KEY,
	session_id bigint NOT NULL,
	user_id bigint NOT NULL,
	game_id int NOT NULL,
	event_type text NOT NULL,
	score int,
	amount numeric(10,2),
	at timestamptz NOT NULL DEFAULT now());

INSERT INTO dim_game VALUES
	(1, 'Space Miners', 'strategy', 9.99), (2, 'Kart Chaos', 'racing', 4.99),
	(3, 'Dungeon Deep', 'rpg', 14.99), (4, 'Word Weave', 'puzzle', NULL);

-- The simulator: each step one transaction of a kind drawn at random:
-- a new user, a user's update (level up, move, top up), a session starting,
-- a session ending, game events of a running session.
CREATE PROCEDURE simulate(steps int) LANGUAGE plpgsql AS $$
DECLARE
	r float8; u bigint; s record; n bigint;
BEGIN
	FOR i IN 1 .. steps LOOP
		r := random();
		SELECT user_id INTO u FROM dim_user ORDER BY random() LIMIT 1;
		IF u IS NULL OR r < 0.15 THEN
			n := coalesce((SELECT max(user_id) FROM dim_user), 1000) + 1;
			INSERT INTO dim_user (user_id, username, email, country)
			VALUES (n, 'player' || n, 'player' || n || '@example.org',
				(ARRAY['DE','FR','JP','US','BR'])[1 + floor(random() * 5)::int]);
		ELSIF r < 0.35 THEN
			UPDATE dim_user SET level = level + 1,
				balance = balance + round((random() * 20)::numeric, 2),
				country = CASE WHEN random() < 0.2 THEN 'CA' ELSE country END,
				updated_at = now()
			WHERE user_id = u;
		ELSIF r < 0.55 THEN
			INSERT INTO dim_session VALUES
				(coalesce((SELECT max(session_id) FROM dim_session), 0) + 1, u,
				 1 + floor(random() * 4)::int, 'playing', now(), NULL);
		ELSIF r < 0.70 THEN
			UPDATE dim_session SET status = 'ended', ended_at = now()
			WHERE session_id = (SELECT session_id FROM dim_session WHERE status = 'playing'
				ORDER BY random() LIMIT 1);
		ELSE
			SELECT * INTO s FROM dim_session WHERE status = 'playing' ORDER BY random() LIMIT 1;
			IF FOUND THEN
				INSERT INTO fact_game_event (session_id, user_id, game_id, event_type, score, amount)
				SELECT s.session_id, s.user_id, s.game_id, e.t, floor(random() * 1000)::int,
					CASE WHEN e.t = 'purchase' THEN round((random() * 10)::numeric, 2) END
				FROM (VALUES ((ARRAY['level_start','level_end','kill','purchase'])[1 + floor(random() * 4)::int])) e(t),
					generate_series(1, 1 + floor(random() * 3)::int);
			END IF;
		END IF;
		COMMIT;
	END LOOP;
END $$;
