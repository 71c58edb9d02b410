# Conveyor in a container: the `conveyor` command with git, bubblewrap and the agent CLIs.
#
#   docker build -t conveyor .
#   docker compose -f contrib/container/compose.yaml up -d      # or, by hand:
#   docker run --rm --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#     --security-opt systempaths=unconfined \
#     -v "$HOME/.config/conveyor:/config:ro" -v conveyor-home:/home/conveyor/home \
#     -e CONVEYOR_CONFIG=/config/conveyor.toml -e CONVEYOR_TOKEN -e ANTHROPIC_API_KEY \
#     conveyor run
#
# The config (which judges the agents' work) comes from a volume, never from the repository
# the agents edit; the token comes from the environment the config's `token_env` names, the
# agents' keys from theirs (or their login files, mounted: contrib/container/compose.yaml).
# CONVEYOR_HOME is a named volume on /home/conveyor/home, which the image makes and gives to
# uid 10001 (contrib/container/prepare-home), so Docker fills a new volume with that owner.
# Sessions run in bubblewrap, which makes user, pid and mount namespaces and mounts its own
# /proc: Docker's default seccomp profile refuses those calls, its AppArmor profile the mounts
# and its masked /proc the proc mount, hence the three --security-opt (on an Ubuntu 24.04
# host also `sysctl kernel.apparmor_restrict_unprivileged_userns=0`); `conveyor doctor` says
# whether a box can be built. Or choose the sandbox's `mode = "none"` knowingly.
# The agent CLIs are the versions `scripts/install-agent-clis` pins (a test keeps them equal).

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
COPY contrib/container/prepare-home contrib/container/entrypoint /opt/conveyor-image/
RUN groupadd --gid 10001 conveyor \
    && useradd --no-create-home --home-dir /home/conveyor --uid 10001 --gid 10001 \
        --shell /usr/sbin/nologin conveyor \
    && /opt/conveyor-image/prepare-home
USER conveyor
WORKDIR /home/conveyor
ENV PATH="/opt/conveyor/bin:/opt/agent-clis/node_modules/.bin:${PATH}" \
    HOME=/home/conveyor \
    CONVEYOR_HOME=/home/conveyor/home
VOLUME ["/home/conveyor/home"]
ENTRYPOINT ["/opt/conveyor-image/entrypoint"]
CMD ["--help"]
