-- Verified misère quotients Q_n (code = canonical game code, bound = n), stored so that a
-- quotient is computed once: `data` is the JSON record of src/store/quotients.rs (the
-- multiplication table, the P-portion, the pretending function, the least words).
CREATE TABLE IF NOT EXISTS misere_quotients (
    code       TEXT   NOT NULL,
    bound      BIGINT NOT NULL,
    q_size     BIGINT NOT NULL,
    p_size     BIGINT NOT NULL,
    data       TEXT   NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (code, bound)
);
