# Conveyor in a container: the `conveyor` command with git, bubblewrap and the agent CLIs.
#
#   docker build -t conveyor .
#   docker run --rm -v "$HOME/.config/conveyor:/config:ro" -v conveyor-home:/home/conveyor/home \
#     -e CONVEYOR_CONFIG=/config/conveyor.toml -e CONVEYOR_TOKEN conveyor run
#
# The config (which judges the agents' work) comes from a volume, never from the repository
# the agents edit; the token comes from the environment the config's `token_env` names.
# The agent CLIs are the versions `scripts/install-agent-clis` pins (a test keeps them equal).
# Sessions run in bubblewrap: give the container user namespaces (e.g. a seccomp profile
# that allows `clone(CLONE_NEWUSER)`), or choose the sandbox's `none` mode knowingly.

# Debian 12 with Node.js 20 (the CLIs' launchers); its python3 is 3.11, which Conveyor runs on.
FROM node:20-bookworm-slim AS base
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        bubblewrap ca-certificates git openssh-client python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*

FROM base AS build
# The agent CLIs from npm at exact versions; each brings its native binary as an optional
# dependency package for the platform, from the same registry.
RUN mkdir /opt/agent-clis \
    && printf '{"name": "conveyor-agent-clis", "private": true}\n' >/opt/agent-clis/package.json \
    && npm install --prefix /opt/agent-clis --no-audit --no-fund --no-save --loglevel=error \
        --include=optional \
        "@anthropic-ai/claude-code@2.1.332" \
        "@openai/codex@0.171.0" \
        "opencode-ai@1.18.33" \
    && for name in claude codex opencode; do test -x "/opt/agent-clis/node_modules/.bin/$name"; done
# Conveyor itself, in its own virtual environment (every dependency ships a wheel).
COPY pyproject.toml README.md /src/conveyor/
COPY src /src/conveyor/src
RUN python3 -m venv /opt/conveyor \
    && /opt/conveyor/bin/pip install --no-cache-dir --disable-pip-version-check /src/conveyor

FROM base
COPY --from=build /opt/agent-clis /opt/agent-clis
COPY --from=build /opt/conveyor /opt/conveyor
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin conveyor
USER conveyor
WORKDIR /home/conveyor
ENV PATH="/opt/conveyor/bin:/opt/agent-clis/node_modules/.bin:${PATH}" \
    CONVEYOR_HOME=/home/conveyor/home
ENTRYPOINT ["conveyor"]
CMD ["--help"]
