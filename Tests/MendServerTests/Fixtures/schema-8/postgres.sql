--
-- PostgreSQL database dump
--

\restrict CorVq0dfCWaBi2oaR7ShfQuDyuNbsgJybXNfkFtjvPjlbv1VgKdD657kkuFTA6M

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: mend_audit_session(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.mend_audit_session() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO mend_audit (at, event, user_id, session_id, provider, detail, address, client)
        VALUES (NEW.created_at, 'login', NEW.user_id, NEW.id, NEW.provider, NEW.flow,
            NEW.first_address, NEW.client);
    ELSIF OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL THEN
        INSERT INTO mend_audit (at, event, user_id, session_id, provider, detail, address, client)
        VALUES (NEW.revoked_at, CASE
        WHEN NEW.revoked_reason = 'refresh_token_reused' THEN 'reuse_detected'
        WHEN NEW.revoked_reason = 'logged_out' AND NEW.revoked_detail = 'token revocation'
            THEN 'revocation'
        WHEN NEW.revoked_reason = 'logged_out' THEN 'logout'
        ELSE 'session_ended' END, NEW.user_id, NEW.id, NEW.provider,
            NEW.revoked_reason || COALESCE(': ' || NEW.revoked_detail, ''), NEW.last_address,
            NEW.client);
    ELSIF NEW.refreshes <> OLD.refreshes THEN
        INSERT INTO mend_audit (at, event, user_id, session_id, provider, address, client)
        VALUES (NEW.refreshed_at, 'refresh', NEW.user_id, NEW.id, NEW.provider, NEW.last_address,
            NEW.client);
    END IF;
    RETURN NULL;
END
$$;


--
-- Name: mend_audit_user(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.mend_audit_user() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO mend_audit (at, event, user_id)
        VALUES (extract(epoch FROM now())::bigint, 'account_deleted', OLD.id);
    ELSIF EXISTS (SELECT 1 FROM mend_identities WHERE user_id = NEW.user_id
        AND NOT (provider = NEW.provider AND subject = NEW.subject)) THEN
        INSERT INTO mend_audit (at, event, user_id, provider)
        VALUES (NEW.created_at, 'account_linked', NEW.user_id, NEW.provider);
    END IF;
    RETURN NULL;
END
$$;


--
-- Name: mend_record_revocation(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.mend_record_revocation() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO mend_revocations (session_id, reason, detail, revoked_at)
    VALUES (NEW.id, NEW.revoked_reason, NEW.revoked_detail, NEW.revoked_at)
    ON CONFLICT (session_id) DO NOTHING;
    PERFORM pg_notify('mend_revocations', json_build_object(
        'session_id', NEW.id, 'reason', NEW.revoked_reason, 'detail', left(NEW.revoked_detail, 1000),
        'revoked_at', NEW.revoked_at)::text);
    RETURN NULL;
END
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: mend_audit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mend_audit (
    id bigint NOT NULL,
    at bigint NOT NULL,
    event text NOT NULL,
    user_id text,
    session_id text,
    provider text,
    detail text,
    address text,
    client text,
    actor text
);


--
-- Name: mend_audit_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.mend_audit_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: mend_audit_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.mend_audit_id_seq OWNED BY public.mend_audit.id;


--
-- Name: mend_deletions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mend_deletions (
    confirmation_code text NOT NULL,
    provider_user_id text NOT NULL,
    status text NOT NULL,
    requested_at bigint NOT NULL,
    completed_at bigint
);


--
-- Name: mend_identities; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mend_identities (
    provider text NOT NULL,
    subject text NOT NULL,
    user_id text NOT NULL,
    email text,
    email_verified boolean,
    is_private_email boolean,
    provider_client_id text,
    provider_refresh_token text,
    created_at bigint NOT NULL,
    last_login_at bigint NOT NULL
);


--
-- Name: mend_login_codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mend_login_codes (
    code_hash text NOT NULL,
    session_id text,
    created_at bigint NOT NULL
);


--
-- Name: mend_rate_limits; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mend_rate_limits (
    key text NOT NULL,
    tokens double precision NOT NULL,
    updated_at double precision NOT NULL
);


--
-- Name: mend_refresh_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mend_refresh_tokens (
    token_hash text NOT NULL,
    session_id text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    rotated_at bigint,
    replaced_by text,
    successor_sealed text
);


--
-- Name: mend_revocations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mend_revocations (
    session_id text NOT NULL,
    reason text,
    detail text,
    revoked_at bigint NOT NULL
);


--
-- Name: mend_schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mend_schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at bigint NOT NULL
);


--
-- Name: mend_seen_signed_requests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mend_seen_signed_requests (
    digest text NOT NULL,
    expires_at bigint NOT NULL
);


--
-- Name: mend_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mend_sessions (
    id text NOT NULL,
    user_id text NOT NULL,
    scopes text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    revoked_at bigint,
    revoked_reason text,
    revoked_detail text,
    client text,
    client_platform text,
    first_address text,
    last_address text,
    refreshed_at bigint,
    provider text,
    flow text,
    refreshes bigint DEFAULT 0 NOT NULL
);


--
-- Name: mend_users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mend_users (
    id text NOT NULL,
    provider_user_id text,
    name text NOT NULL,
    email text,
    picture text,
    granted_scopes text NOT NULL,
    declined_scopes text NOT NULL,
    provider_token text,
    provider_token_expires_at bigint,
    provider_token_checked_at bigint,
    provider_token_invalid_reason text,
    profile_refreshed_at bigint NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
);


--
-- Name: mend_audit id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mend_audit ALTER COLUMN id SET DEFAULT nextval('public.mend_audit_id_seq'::regclass);


--
-- Data for Name: mend_audit; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mend_audit VALUES (1, 1795764249, 'login', 'ba53acbb-6a90-4185-8e2e-55fc7314b447', 'ses_41qfntxNLuzuYEnmh9yuKA', 'facebook', 'code', '127.0.0.1', NULL, NULL);
INSERT INTO public.mend_audit VALUES (2, 1795764254, 'login', 'ba53acbb-6a90-4185-8e2e-55fc7314b447', 'ses_SycjkP5M34zYuEmMU8-PFA', 'facebook', 'code', '127.0.0.1', NULL, NULL);
INSERT INTO public.mend_audit VALUES (3, 1795764254, 'refresh', 'ba53acbb-6a90-4185-8e2e-55fc7314b447', 'ses_SycjkP5M34zYuEmMU8-PFA', 'facebook', NULL, '127.0.0.1', NULL, NULL);
INSERT INTO public.mend_audit VALUES (4, 1795764255, 'account_linked', 'ba53acbb-6a90-4185-8e2e-55fc7314b447', NULL, 'apple', NULL, NULL, NULL, NULL);
INSERT INTO public.mend_audit VALUES (5, 1795764255, 'login', 'ba53acbb-6a90-4185-8e2e-55fc7314b447', 'ses_rKXZFWBV6It49t52LvEd8A', 'apple', 'id_token', '127.0.0.1', NULL, NULL);
INSERT INTO public.mend_audit VALUES (6, 1795764260, 'login', '78b3b2e0-ab79-4909-bae2-2b625ef4b5b5', 'ses_9HLIlZczcZYsPkeNzuv0ow', 'facebook', 'code', '127.0.0.1', NULL, NULL);
INSERT INTO public.mend_audit VALUES (7, 1795764260, 'login', '78b3b2e0-ab79-4909-bae2-2b625ef4b5b5', 'ses_GIBcFR_2_C0amZ8bhvPJDg', 'facebook', 'code', '127.0.0.1', NULL, NULL);
INSERT INTO public.mend_audit VALUES (8, 1795764260, 'logout', '78b3b2e0-ab79-4909-bae2-2b625ef4b5b5', 'ses_GIBcFR_2_C0amZ8bhvPJDg', 'facebook', 'logged_out', '127.0.0.1', NULL, NULL);
INSERT INTO public.mend_audit VALUES (9, 1795764265, 'login', '41aff062-4d9d-43a1-98f5-136ab62ad67a', 'ses_LyiIPePZO6KQuBreSvMhOA', 'google', 'id_token', '127.0.0.1', NULL, NULL);


--
-- Data for Name: mend_deletions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: mend_identities; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mend_identities VALUES ('facebook', '100000000000001', 'ba53acbb-6a90-4185-8e2e-55fc7314b447', 'alice@example.com', NULL, NULL, NULL, NULL, 1795764249, 1795764249);
INSERT INTO public.mend_identities VALUES ('apple', '078152.4e98eb7a526262609a28ec8c813ce5cc.2352', 'ba53acbb-6a90-4185-8e2e-55fc7314b447', '499bec0b058b@privaterelay.appleid.com', true, true, NULL, NULL, 1795764255, 1795764255);
INSERT INTO public.mend_identities VALUES ('facebook', '100000000000002', '78b3b2e0-ab79-4909-bae2-2b625ef4b5b5', 'bob@example.com', NULL, NULL, NULL, NULL, 1795764260, 1795764260);
INSERT INTO public.mend_identities VALUES ('google', '100518723069067680881', '41aff062-4d9d-43a1-98f5-136ab62ad67a', 'bob@example.com', true, NULL, 'mend-web.apps.googleusercontent.com', 'v1:5+/5owYoV9XtQcZPfyuxqcY+bA8dSDJG+Udm/mVgnRsGRiVldsjNA/mb69fCHqqtjymsjt+ZP8fVBBostbvyLxVXQvYAz0g0kos4D+S4DOSiC7pgm8tN+aNqSa0=', 1795764265, 1795764265);


--
-- Data for Name: mend_login_codes; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mend_login_codes VALUES ('8a85ba78345a3c9753121d406c58523c1eeeb1298cea88398ee3d4b067180b76', 'ses_41qfntxNLuzuYEnmh9yuKA', 1795764249);
INSERT INTO public.mend_login_codes VALUES ('94a3bddcbca92d2d5a29a1c034f4ecd99eed8f15b40d0b8d2c3448549aadb617', 'ses_SycjkP5M34zYuEmMU8-PFA', 1795764254);
INSERT INTO public.mend_login_codes VALUES ('291097cbf23259cce27e7ae9db2c07aeb0cc86ef0d1f4ad4daec1c6208a64e50', 'ses_rKXZFWBV6It49t52LvEd8A', 1795764255);
INSERT INTO public.mend_login_codes VALUES ('bf15847b1cb480f8234034fe55821512456a81d1471e4bc89301e8f61d2ca3f5', 'ses_9HLIlZczcZYsPkeNzuv0ow', 1795764260);
INSERT INTO public.mend_login_codes VALUES ('1e89ba9b32e499ff336eea570a6d9f0529a1e4c8f331a45a5210cc95577044d8', 'ses_GIBcFR_2_C0amZ8bhvPJDg', 1795764260);
INSERT INTO public.mend_login_codes VALUES ('76ea278f96875b566f170b8bc56cfb60a85fbdce5a12c2fe98374c8708a1ec09', 'ses_LyiIPePZO6KQuBreSvMhOA', 1795764265);


--
-- Data for Name: mend_rate_limits; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: mend_refresh_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mend_refresh_tokens VALUES ('00bd549b935d14671472e083b00a9026a3c3c5cee2f94b2fc08921ebf9eb3bdb', 'ses_41qfntxNLuzuYEnmh9yuKA', 1795764249, 1798356249, NULL, NULL, NULL);
INSERT INTO public.mend_refresh_tokens VALUES ('da5418629b6f2c18ffecff534f6f0c558ec38ec4a286eb6ccdd3fae9a5c81b12', 'ses_SycjkP5M34zYuEmMU8-PFA', 1795764254, 1798356254, NULL, NULL, NULL);
INSERT INTO public.mend_refresh_tokens VALUES ('e39d95cf4a2717841f045b5a7af5688a1a00eee1cee53fb43b3494abe2112971', 'ses_SycjkP5M34zYuEmMU8-PFA', 1795764254, 1798356254, 1795764254, 'da5418629b6f2c18ffecff534f6f0c558ec38ec4a286eb6ccdd3fae9a5c81b12', 'v1:DvGlCQfsRW7R2asp2QnV3vQNwx/s6kPAVzYjl5rsp0D/RK0ze5RvJMgR2y+U3Vhf0/piffJu3qEspI3zKc5lzvoKAo/iSXT4RIp7');
INSERT INTO public.mend_refresh_tokens VALUES ('2090d83e3d2f5877772ab1a4be9b35b41fe0988dd6deec20417f0ac6958945ea', 'ses_rKXZFWBV6It49t52LvEd8A', 1795764255, 1798356255, NULL, NULL, NULL);
INSERT INTO public.mend_refresh_tokens VALUES ('c0c416763252109971113234b97155fa8457febbc40a9e301e89753b94787a3f', 'ses_9HLIlZczcZYsPkeNzuv0ow', 1795764260, 1798356260, NULL, NULL, NULL);
INSERT INTO public.mend_refresh_tokens VALUES ('c8c7f1062930cb4a276e7eacd609a62cf2c13715d2d16dcd9cc9032d0005a6e2', 'ses_GIBcFR_2_C0amZ8bhvPJDg', 1795764260, 1798356260, NULL, NULL, NULL);
INSERT INTO public.mend_refresh_tokens VALUES ('be437f27b88922e2b7c9fc57fa10e3d3703efa2bbe979930085e6c25e8be24a3', 'ses_LyiIPePZO6KQuBreSvMhOA', 1795764265, 1798356265, NULL, NULL, NULL);


--
-- Data for Name: mend_revocations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mend_revocations VALUES ('ses_GIBcFR_2_C0amZ8bhvPJDg', 'logged_out', NULL, 1795764260);


--
-- Data for Name: mend_schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mend_schema_migrations VALUES (1, 'users, sessions, refresh tokens, login codes, deletions', 1795764249);
INSERT INTO public.mend_schema_migrations VALUES (2, 'sealed refresh-token successors (idempotent refresh), session end details', 1795764249);
INSERT INTO public.mend_schema_migrations VALUES (3, 'signed_request callbacks seen (replays are refused)', 1795764249);
INSERT INTO public.mend_schema_migrations VALUES (4, 'revocation log (the revocation view''s source) and its trigger, NOTIFY on PostgreSQL; shared rate limits', 1795764249);
INSERT INTO public.mend_schema_migrations VALUES (5, 'identities by provider and subject (several per user, with a token to revoke); users without a Facebook id', 1795764249);
INSERT INTO public.mend_schema_migrations VALUES (6, 'devices: each session''s client, platform, first and last address, last refresh', 1795764249);
INSERT INTO public.mend_schema_migrations VALUES (7, 'the audit log: authentication events, written by triggers in the transaction of their change', 1795764249);
INSERT INTO public.mend_schema_migrations VALUES (8, 'every refresh is an audit event: a count of refreshes, not the whole second of the last one', 1795764249);


--
-- Data for Name: mend_seen_signed_requests; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: mend_sessions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mend_sessions VALUES ('ses_41qfntxNLuzuYEnmh9yuKA', 'ba53acbb-6a90-4185-8e2e-55fc7314b447', 'email,public_profile', 1795764249, 1798356249, NULL, NULL, NULL, NULL, NULL, '127.0.0.1', '127.0.0.1', NULL, 'facebook', 'code', 0);
INSERT INTO public.mend_sessions VALUES ('ses_SycjkP5M34zYuEmMU8-PFA', 'ba53acbb-6a90-4185-8e2e-55fc7314b447', 'email,public_profile', 1795764254, 1798356254, NULL, NULL, NULL, NULL, NULL, '127.0.0.1', '127.0.0.1', 1795764254, 'facebook', 'code', 1);
INSERT INTO public.mend_sessions VALUES ('ses_rKXZFWBV6It49t52LvEd8A', 'ba53acbb-6a90-4185-8e2e-55fc7314b447', 'email,public_profile', 1795764255, 1798356255, NULL, NULL, NULL, NULL, NULL, '127.0.0.1', '127.0.0.1', NULL, 'apple', 'id_token', 0);
INSERT INTO public.mend_sessions VALUES ('ses_9HLIlZczcZYsPkeNzuv0ow', '78b3b2e0-ab79-4909-bae2-2b625ef4b5b5', 'email,public_profile', 1795764260, 1798356260, NULL, NULL, NULL, NULL, NULL, '127.0.0.1', '127.0.0.1', NULL, 'facebook', 'code', 0);
INSERT INTO public.mend_sessions VALUES ('ses_GIBcFR_2_C0amZ8bhvPJDg', '78b3b2e0-ab79-4909-bae2-2b625ef4b5b5', 'email,public_profile', 1795764260, 1798356260, 1795764260, 'logged_out', NULL, NULL, NULL, '127.0.0.1', '127.0.0.1', NULL, 'facebook', 'code', 0);
INSERT INTO public.mend_sessions VALUES ('ses_LyiIPePZO6KQuBreSvMhOA', '41aff062-4d9d-43a1-98f5-136ab62ad67a', 'openid,https://www.googleapis.com/auth/userinfo.email,https://www.googleapis.com/auth/userinfo.profile', 1795764265, 1798356265, NULL, NULL, NULL, NULL, NULL, '127.0.0.1', '127.0.0.1', NULL, 'google', 'id_token', 0);


--
-- Data for Name: mend_users; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mend_users VALUES ('ba53acbb-6a90-4185-8e2e-55fc7314b447', '100000000000001', 'Alice Example', 'alice@example.com', 'https://emulator.mend.invalid/pictures/100000000000001.jpg', 'email,public_profile', '', 'v1:mdcEHCO4fIQvCRMo4knLRPH3XjT2fRDjYoP8Z/S0YHFgjKqWk5/+fTAkRGRplvuIOZfiFTqwBgkDVocaQWHVhrcXX/CAOo+FLy8qvOsnEyA3kQnkNUHRnORlJPAf3VJHrKC2eoOIuW2EXdJ/9s/G+Z5Of01oCUtTslvbTdzx4vMywgNoAnMzoitPR3NzrTPRltoABcWdG0+dP+/vzLgeA6Y4I+ekP7gdi61dse1Ayh9c9byEYtaiAI6+N5M2M1dg1SETJKDstQ/jwI+R3EUwfC5BOA==', 1800948198, 1795764254, NULL, 1795764254, 1795764249, 1795764254);
INSERT INTO public.mend_users VALUES ('78b3b2e0-ab79-4909-bae2-2b625ef4b5b5', '100000000000002', 'Bob Example', 'bob@example.com', 'https://emulator.mend.invalid/pictures/100000000000002.jpg', 'email,public_profile', '', 'v1:FYosg498JVL9Zq3KyouvHOugGAKLdwfonXNvIqnHOA67H5C5RtbMHu7RahJ9H0mmA/9VlXqG9WpeY8XKFtKLGVlYYD90sec6o0MJn4P9VZtdkEHwaJJtaXzW3YTov0jeyquZFwUjv5+pV5AfL7LIOmP0OwlFcc1Eleozr7CO9Jb+i6MhOTGKOxEgaH3ft0U4Wh0v52KNr6qYMXLl+J7oq+ePNfX1Yoxw0fRMvpA6CmOiBgK9vBu6W8wkXs1jT5cYIiAEYp1sDE2l7H6WfWE2rcdZRw==', 1800948204, 1795764260, NULL, 1795764260, 1795764260, 1795764260);
INSERT INTO public.mend_users VALUES ('41aff062-4d9d-43a1-98f5-136ab62ad67a', NULL, 'Bob Example', 'bob@example.com', NULL, 'openid,https://www.googleapis.com/auth/userinfo.email,https://www.googleapis.com/auth/userinfo.profile', '', NULL, NULL, NULL, NULL, 1795764265, 1795764265, 1795764265);


--
-- Name: mend_audit_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.mend_audit_id_seq', 9, true);


--
-- Name: mend_audit mend_audit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mend_audit
    ADD CONSTRAINT mend_audit_pkey PRIMARY KEY (id);


--
-- Name: mend_deletions mend_deletions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mend_deletions
    ADD CONSTRAINT mend_deletions_pkey PRIMARY KEY (confirmation_code);


--
-- Name: mend_identities mend_identities_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mend_identities
    ADD CONSTRAINT mend_identities_pkey PRIMARY KEY (provider, subject);


--
-- Name: mend_login_codes mend_login_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mend_login_codes
    ADD CONSTRAINT mend_login_codes_pkey PRIMARY KEY (code_hash);


--
-- Name: mend_rate_limits mend_rate_limits_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mend_rate_limits
    ADD CONSTRAINT mend_rate_limits_pkey PRIMARY KEY (key);


--
-- Name: mend_refresh_tokens mend_refresh_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mend_refresh_tokens
    ADD CONSTRAINT mend_refresh_tokens_pkey PRIMARY KEY (token_hash);


--
-- Name: mend_revocations mend_revocations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mend_revocations
    ADD CONSTRAINT mend_revocations_pkey PRIMARY KEY (session_id);


--
-- Name: mend_schema_migrations mend_schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mend_schema_migrations
    ADD CONSTRAINT mend_schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: mend_seen_signed_requests mend_seen_signed_requests_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mend_seen_signed_requests
    ADD CONSTRAINT mend_seen_signed_requests_pkey PRIMARY KEY (digest);


--
-- Name: mend_sessions mend_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mend_sessions
    ADD CONSTRAINT mend_sessions_pkey PRIMARY KEY (id);


--
-- Name: mend_users mend_users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mend_users
    ADD CONSTRAINT mend_users_pkey PRIMARY KEY (id);


--
-- Name: mend_users mend_users_provider_user_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mend_users
    ADD CONSTRAINT mend_users_provider_user_id_key UNIQUE (provider_user_id);


--
-- Name: mend_audit_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mend_audit_time ON public.mend_audit USING btree (at);


--
-- Name: mend_audit_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mend_audit_user ON public.mend_audit USING btree (user_id, id);


--
-- Name: mend_identities_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mend_identities_user ON public.mend_identities USING btree (user_id);


--
-- Name: mend_refresh_tokens_session; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mend_refresh_tokens_session ON public.mend_refresh_tokens USING btree (session_id);


--
-- Name: mend_revocations_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mend_revocations_time ON public.mend_revocations USING btree (revoked_at);


--
-- Name: mend_seen_signed_requests_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mend_seen_signed_requests_expiry ON public.mend_seen_signed_requests USING btree (expires_at);


--
-- Name: mend_sessions_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mend_sessions_user ON public.mend_sessions USING btree (user_id);


--
-- Name: mend_users mend_audit_deleted; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER mend_audit_deleted AFTER DELETE ON public.mend_users FOR EACH ROW EXECUTE FUNCTION public.mend_audit_user();


--
-- Name: mend_identities mend_audit_linked; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER mend_audit_linked AFTER INSERT ON public.mend_identities FOR EACH ROW EXECUTE FUNCTION public.mend_audit_user();


--
-- Name: mend_sessions mend_audit_session; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER mend_audit_session AFTER INSERT OR UPDATE OF revoked_at, refreshes ON public.mend_sessions FOR EACH ROW EXECUTE FUNCTION public.mend_audit_session();


--
-- Name: mend_sessions mend_sessions_revoked; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER mend_sessions_revoked AFTER UPDATE OF revoked_at ON public.mend_sessions FOR EACH ROW WHEN (((old.revoked_at IS NULL) AND (new.revoked_at IS NOT NULL))) EXECUTE FUNCTION public.mend_record_revocation();


--
-- PostgreSQL database dump complete
--

\unrestrict CorVq0dfCWaBi2oaR7ShfQuDyuNbsgJybXNfkFtjvPjlbv1VgKdD657kkuFTA6M

