"""The fifth evaluation set's data, "Platform": memories derived from a real platform team's public
decision records and runbooks, and the questions a teammate would ask about them.

Source: the architecture decision records (``docs/architecture/decisions/0001-0024``) and the
operating notes (``docs/*.md``, ``terraform/docs/*.md``, a few deployment READMEs) of the public
repository ``alphagov/govuk-infrastructure`` (MIT licence, Crown Copyright, Government Digital
Service), read at commit ``d9b7454f``. Each memory restates one record or note in a few
sentences of our own (the facts, names and numbers are the source's; no passage is copied);
the questions were written for this set and are not from the source. See
``tests/eval/README.md`` ("Platform").

``MEMORIES``: ``(id, category, date, title, tags, content)``; ``content`` holds the category's
fields. ``QUESTIONS``: ``(kind, question, [expected ids])``, ``[]`` for an unrelated prompt.
"""
from __future__ import annotations


def decision(context, decision_text, rationale, consequences=(), alternatives=(), status="accepted"):
    out = {"status": status, "context": context, "decision": decision_text, "rationale": list(rationale)}
    if consequences:
        out["consequences"] = list(consequences)
    if alternatives:
        out["alternatives"] = [{"option": o, "rejected_reason": r} for o, r in alternatives]
    return out


def runbook(trigger, steps, verification, symptoms=()):
    out = {"trigger": trigger, "steps": list(steps), "verification": verification}
    if symptoms:
        out["symptoms"] = list(symptoms)
    return out


def constraint(rule, impact, severity="high", kind="policy", workarounds=()):
    out = {"kind": kind, "rule": rule, "impact": list(impact), "severity": severity, "active": True}
    if workarounds:
        out["workarounds"] = list(workarounds)
    return out


def preference(topic, value, reason, strength="default"):
    return {"topic": topic, "value": value, "reason": reason, "strength": strength}


def debt(description, reason, priority="medium", fix=()):
    out = {"status": "open", "priority": priority, "description": description, "reason_deferred": reason}
    if fix:
        out["suggested_fix"] = list(fix)
    return out


def session(goal, completed, next_actions, outcome="success"):
    return {"goal": goal, "outcome": outcome, "completed": list(completed), "next_actions": list(next_actions)}


MEMORIES = [
    ("adr-records", "preference", "2021-08-09", "Write architecture decisions down as numbered ADRs",
     ["adr", "documentation"],
     preference("decision records", "Every significant platform decision gets a numbered record under "
                "docs/architecture/decisions (context, decision, consequences), from the 0000 template; a "
                "workflow checks the numbering on pull requests.",
                "So the reasons survive the people who made them and old debates are not reopened.")),
    ("eks-module", "decision", "2021-08-10", "Build EKS clusters with the community Terraform EKS module",
     ["eks", "terraform", "module"],
     decision("A working EKS cluster needs a long list of AWS resources; writing all of them in our own module is "
              "flexible but slow.",
              "Use the terraform-aws-modules/eks/aws module from the Terraform registry.",
              ["Its defaults suit us for now and it already exposes most cluster options, such as worker node types."],
              ["If it stops fitting we can contribute upstream, fork it, or move to our own module.",
               "Its built-in kubernetes provider is configured from other resources' outputs, which behaves "
               "non-deterministically; handled by splitting the state (next record)."])),
    ("split-state", "decision", "2021-08-11",
     "Split Terraform into cluster-infrastructure and cluster-services phases", ["terraform", "state", "eks"],
     decision("The kubernetes provider needs the cluster endpoint and certificate, which are outputs of AWS resources "
              "in the same run; providers are not nodes of the plan graph, so they can be configured before the "
              "values exist (race conditions).",
              "Two roots applied in order: cluster-infrastructure (the EKS cluster and its AWS resources, no "
              "kubernetes provider) and cluster-services (in-cluster resources such as ingress controllers and the "
              "aws-auth ConfigMap, with the kubernetes provider fed from the first root's remote state).",
              ["Provider arguments should be known before the run starts."],
              ["The EKS module's manage_aws_auth must be false.",
               "Tearing a cluster down works: load balancers created by Ingress and Service objects no longer "
               "block deleting the cluster.",
               "Generic cluster infrastructure stays apart from GOV.UK-specific configuration."])),
    ("lb-controller", "decision", "2021-08-12", "Use the AWS Load Balancer Controller for traffic into the cluster",
     ["ingress", "alb", "nlb", "load-balancer"],
     decision("The cluster must not face the internet directly: an AWS load balancer in front must terminate TLS and "
              "work with Route 53. The in-tree AWS cloud provider is deprecated, so an out-of-tree ingress "
              "controller is needed; both Ingress and Service objects must be usable while the overlap with the "
              "GOV.UK router is investigated.",
              "Install the AWS Load Balancer Controller: ALBs for Ingress objects, NLBs for Service objects.",
              ["It is the recommended controller on EKS and supports WAF and Shield, both already used."],
              ["Certificates only from AWS Certificate Manager.",
               "It does not create DNS records for ingress hostnames (external-dns does).",
               "By default every Ingress gets its own load balancer; IngressGroup annotations share one.",
               "Who may edit Ingress rules needs thought if everything shares one namespace."])),
    ("managed-nodes", "decision", "2021-08-13", "Run workloads on EKS managed node groups",
     ["eks", "node-groups", "fargate", "ec2"],
     decision("EKS offers managed node groups, self-managed node groups and Fargate. Kubernetes ships a minor version "
              "about every four months, so node upgrades come often and must be safe.",
              "Use managed node groups.",
              ["AWS drains and replaces managed nodes during upgrades; self-managed groups would need our own "
               "rollout process.",
               "Fargate cannot run DaemonSets, use another CNI or attach EBS volumes."],
              ["Adding self-managed groups or Fargate later is additive."],
              [("Fargate", "no DaemonSets, no custom CNI, no EBS volumes"),
               ("self-managed node groups", "we would orchestrate node upgrades ourselves")])),
    ("helm", "decision", "2021-08-16", "Package applications for Kubernetes with Helm 3",
     ["helm", "charts", "packaging"],
     decision("Applications need to be defined once and deployed to several environments with different settings, "
              "which hand-written YAML cannot do.",
              "Use Helm v3 or later for application packages.",
              ["Wide adoption, many ready-made charts and tooling (GitHub Actions, editors, a Terraform provider)."],
              ["Community charts can be reused (load balancer controller, kube-prometheus-stack, Fluentd).",
               "helm history and helm rollback exist, but rolling back an app whose database was migrated needs care.",
               "A chart's version is not the application's version: keep them apart when talking to app teams.",
               "Go templates inside YAML inherit YAML's quirks."],
              [("Terraform's kubernetes provider", "blurs infrastructure and applications and lags behind Kubernetes"),
               ("Kustomize", "little adoption and little beyond interpolating values")])),
    ("logging", "decision", "2021-08-16", "Ship application logs with Fluent Bit to Elasticsearch and Kibana",
     ["logging", "fluent-bit", "elasticsearch", "kibana"],
     decision("Containers log to stdout and stderr; logs must be collected for every container by default, tagged "
              "with namespace, pod and labels, and searchable in a browser.",
              "Run Fluent Bit as a DaemonSet and send to the AWS Elasticsearch Service, with Kibana as the UI.",
              ["Fluent Bit is lighter and faster than Fluentd and can be swapped for it; sidecars cannot make logging "
               "the default for every pod."],
              ["Kibana must sit behind authentication with corporate identities.",
               "Covers application logs only, not control plane or kubelet logs.",
               "Later deprecated without a replacement record."],
              status="deprecated")),
    ("external-secrets", "decision", "2021-08-26", "Sync AWS Secrets Manager into Kubernetes with external-secrets",
     ["secrets", "secretsmanager", "external-secrets", "kms"],
     decision("Secrets must live outside the cluster (AWS Secrets Manager) so a cluster can be rebuilt from external "
              "sources, stay encrypted end to end, follow least privilege and pick up rotated values, while pods "
              "keep reading ordinary Kubernetes Secret objects.",
              "Use the external-secrets operator (the Go rewrite and successor of kubernetes-external-secrets).",
              ["kubernetes-external-secrets is on a deprecation path with no migration; external-secrets is newer "
               "but the proof of concept raised no real issues."],
              ["Expect some bugs and API changes from a young project.",
               "Enable KMS envelope encryption for Kubernetes Secrets.",
               "A rotated secret does not restart the pods that use it: that needs something like Reloader."],
              [("Secrets Store CSI driver", "complex, mounts volumes even for environment variables"),
               ("kubernetes-external-secrets", "deprecated, no highly available setup")])),
    ("external-dns", "decision", "2021-08-27", "Manage DNS records from Kubernetes with external-dns",
     ["dns", "route53", "external-dns"],
     decision("DNS records for Ingress and LoadBalancer Services managed by hand in Terraform are slow and brittle.",
              "Use external-dns, installed from its Helm chart, writing to Route 53 through IAM roles for service "
              "accounts.",
              ["It supports every AWS load balancer type and the ingress controller."],
              ["A record is one annotation on the Ingress or Service: "
               "external-dns.alpha.kubernetes.io/hostname: foo.test.govuk.digital"])),
    ("dex", "decision", "2021-12-01", "Use Dex as the single sign-on for platform web UIs",
     ["dex", "sso", "oidc", "github", "grafana"],
     decision("Grafana, Prometheus and Alertmanager need a login, with access decided by GitHub organisation and "
              "team membership. Prometheus and Alertmanager have no login of their own, so the ALB must "
              "authenticate, and ALBs speak OIDC only; GitHub offers OAuth2, not OIDC, and Cognito cannot broker "
              "GitHub.",
              "Run Dex as the identity broker (GitHub behind it, OIDC in front) for user-facing web tools only, "
              "never for AWS or Kubernetes authentication.",
              ["One integration with the identity provider for every UI; Argo CD already used Dex."],
              ["Dex moves out of the Argo installation into its own Helm release.",
               "It is a single point of failure and an attack target: run it highly available and include it in "
               "penetration tests."])),
    ("graviton", "decision", "2025-03-03", "Move compute to AWS Graviton (ARM) instances",
     ["graviton", "arm", "ec2", "cost"],
     decision("Engineers develop on Apple Silicon laptops (ARM); Graviton instances (m7g, r7g) cost less than the "
              "Intel and AMD ones and draw less power.",
              "Build every app image for ARM, add Graviton node groups, schedule only ARM images and scale the x86_64 "
              "node groups to zero.",
              ["About 15% cheaper per instance from m6i to m7g; with right-sized requests and limits, 55% lower "
               "compute cost.", "The same architecture locally, in non-production and in production."],
              ["x86_64 node groups can come back beside ARM if a workload needs them."])),
    ("domain-policy", "constraint", "2025-05-06", "Non-GOV.UK domains must not look like or serve GOV.UK publicly",
     ["domains", "phishing", "safe-browsing"],
     constraint("A page on a domain that does not end in gov.uk (govuk.digital, govuk-internal.digital) that looks "
                "like GOV.UK must require authentication (Signon or basic auth) or be unreachable from the internet; "
                "and no GOV.UK page or asset may use a non-GOV.UK domain anywhere the browser sees it (a redirect "
                "in the chain, a favicon request). Used only behind the scenes it is fine.",
                ["Google Safe Browsing can flag such a domain as phishing, and browsers then block it: at worst "
                 "large parts of GOV.UK become unreachable."])),
    ("hpa-external-metrics", "decision", "2025-06-03",
     "Autoscale on Prometheus metrics through the Prometheus Adapter", ["hpa", "autoscaling", "prometheus-adapter"],
     decision("Horizontal Pod Autoscalers only scaled on CPU and memory from metrics-server; the chat AI worker "
              "needs to scale on its Sidekiq queue backlog, which Prometheus already scrapes, but nothing served it "
              "on the external.metrics.k8s.io API.",
              "Install the prometheus-community/prometheus-adapter chart in the monitoring namespace through "
              "govuk-helm-charts and Argo CD, with one external rule to start: "
              "sidekiq_queue_backlog{job=\"govuk-chat-worker\"} exposed as ai_sidekiq_queue_backlog. Roll out "
              "integration, then staging, then production; keep the default rules off.",
              ["Standard, no custom controller, one small pod per cluster (under 100 MiB)."],
              ["A rule with an invalid resource name crashes the adapter and takes the APIService down.",
               "Extra Prometheus queries every relist interval (one minute by default).",
               "Scaling on a poor signal can over- or under-scale production."])),
    ("tf-state-s3", "decision", "2025-06-10", "Keep Terraform state in S3 instead of Terraform Cloud",
     ["terraform", "state", "s3", "terraform-cloud"],
     decision("93 Terraform Cloud workspaces (times three environments) cost a lot and lock us in, with a renewal "
              "due; S3 state with native locking is mature and meets the security baseline.",
              "One state bucket per environment (govuk-terraform-state-integration, -staging, -production) with "
              "versioning, public access blocked and SSE-KMS; object versions kept 90 days; created by a shared "
              "state-backend module. The github-actions-tf role writes and locks; govuk-platform-engineer only "
              "for break-glass. Migrate workspace by workspace starting with integration, then cancel Terraform "
              "Cloud.",
              ["Under 100 pounds a year, a saving of more than 99%; state stays inside our AWS organisation."],
              ["No run UI, drift detection or cost estimation any more: scheduled drift plans and Infracost instead.",
               "Whoever can write to the repository may reach infrastructure through the pipeline runner."])),
    ("tf-backend-block", "runbook", "2025-06-11", "Point a Terraform workspace at the S3 state backend",
     ["terraform", "backend", "s3", "migration"],
     runbook("Moving a workspace off Terraform Cloud to the S3 state backend.",
             ["Give the root a backend \"s3\" block: bucket govuk-terraform-state-<environment>, key "
              "<path>/terraform.tfstate, region eu-west-2, encrypt true.",
              "Start with the integration workspace, then staging, then production.",
              "If it goes wrong, point the backend back at Terraform Cloud."],
             "terraform plan shows no changes and the state object is in the environment's bucket.")),
    ("readonly-role", "decision", "2026-06-16", "Bring back a ReadOnly IAM role",
     ["iam", "readonly", "least-privilege", "roles"],
     decision("A survey showed most people assumed PowerUser by default because ReadOnly could not use Athena; the "
              "ReadOnly, User and PowerUser roles were replaced by Developer, which can update and delete "
              "Deployments, so the lowest privilege could take production down.",
              "Reintroduce a ReadOnly role for looking around, for apprentices and junior engineers, and for outside "
              "people such as penetration testers. It cannot read secret values in Secrets Manager or SSM "
              "Parameter Store, nor objects in S3, and is assumed like the other roles (GDS CLI or its name in the "
              "console).",
              ["Read-only should never see more than reading the source code would show."],
              ["One more role to maintain."])),
    ("iam-roles", "decision", "2026-06-20", "Replace IAM users and access keys with roles",
     ["iam", "access-keys", "pod-identity"],
     decision("Many services use long-lived IAM user access keys, which are dangerous if leaked and need rotating.",
              "Delete IAM users and their keys in favour of IAM roles (or EKS Pod Identity for pods) whenever a key "
              "comes up for rotation and the service can assume a role; Fastly was moved this way.",
              ["Fewer attack vectors and least privilege."],
              ["Each migration needs its own role and policy work."])),
    ("github-topics", "decision", "2026-08-06", "Stop using GitHub topics to drive automation",
     ["github", "topics", "terraform"],
     decision("Topics chose which repositories got standard settings and secrets; anyone with access to a repository "
              "can set them, and GitHub search API incidents made Terraform runs remove ECR repositories and "
              "CodeCommit mirrors. An IT health check raised it.",
              "Configure repositories explicitly in code (the github Terraform deployment's configuration files); "
              "topics stay only for finding and filtering repositories.",
              ["Topics cannot grant deployment secrets without review any more."])),
    ("github-config", "runbook", "2026-08-07", "Configure GitHub repositories through the github Terraform deployment",
     ["github", "branch-protection", "repositories"],
     runbook("A repository needs deploy secrets, branch protection or team access.",
             ["Set its properties in the deployment's YAML file (for example can_be_deployed: true gives the Argo and "
              "CI secrets; gem publishers get the govuk-ci token; pact publishers the Pact Broker credentials).",
              "Branch protection on main (reviews, status checks, who may push) and team access come from the same "
              "file.",
              "Apply with a GitHub token from an alphagov admin with admin:org and public_repo scopes."],
             "The repository settings page shows the protection and the secrets.")),
    ("concourse", "decision", "2025-08-12", "Replace the deploy pipeline with Concourse CI",
     ["concourse", "ci", "cd", "kargo", "argo"],
     decision("Deploys ran through GitHub Actions, Argo CD and Argo Workflows; a 2024 IT health check found security "
              "flaws in it, it caused incidents, and leaving Terraform Cloud needs something to apply Terraform.",
              "Adopt Concourse CI, running in Kubernetes rather than on EC2 virtual machines.",
              ["A prototype built, deployed, validated and promoted an image across mock clusters with no "
               "show-stopper."],
              ["Both systems run side by side during the move, doubling maintenance for a while.",
               "App teams need new documentation and help."],
              [("Kargo", "the sharding it needs is left undocumented to push the commercial edition; the workaround "
                "disabled deploy validation")])),
    ("cicd-structure", "decision", "2025-10-16",
     "A Concourse per environment plus a central build Concourse", ["concourse", "cicd", "argocd", "deployments"],
     decision("After the 2024 health check, user research in April 2025 and the move off Terraform Cloud, the path "
              "to production was redesigned (team design day, 15 October 2025).",
              "Each environment runs a Concourse that deploys only there; a central Concourse in a tools account "
              "builds images once, with no permission into other accounts. Steps: merge to main, build and push an "
              "image tagged with the commit SHA, each environment detects the tag, renders manifests at that SHA, "
              "stores them in Git, triggers an Argo CD sync, waits, and re-tags the image on success before the "
              "next environment.",
              ["Rebuilding per environment multiplies bad builds: Rails asset precompilation sometimes fails "
               "silently.", "GitHub Actions was too slow and unreliable for builds."],
              ["Rendered manifests are versioned in Git like code (govuk-helm-charts had 190,000+ commits of value "
               "bumps)."],
              [("one management cluster deploying everywhere", "crosses account boundaries, a big target and a "
                "single point of failure"),
               ("Concourse on EC2", "a kind of infrastructure we run nowhere else")])),
    ("crossplane", "decision", "2025-10-20", "Give app teams a higher-level API with Crossplane",
     ["crossplane", "helm", "platform-api"],
     decision("The generic app Helm chart grew to cover migrations, Redis, cron jobs, autoscaling and service "
              "accounts, and became hard to read and easy to break (Go templates in YAML, values derived from values).",
              "Use Crossplane composite resources to offer types such as apps, backing services and routes, and a "
              "catalogue of backing services that will replace creating them in Terraform; each app's "
              "infrastructure code moves into its own repository.",
              ["A September 2025 firebreak experiment went well."])),
    ("fastly-ttl", "decision", "2026-10-27", "Give the Fastly CNAME records a 300 second TTL",
     ["fastly", "cdn", "dns", "ttl", "cloudfront"],
     decision("www.gov.uk points at www-cdn.production.govuk.service.gov.uk, which with "
              "assets.publishing.service.gov.uk points at Fastly; in a Fastly incident both are repointed to AWS "
              "CloudFront, and with a one hour TTL that took up to an hour to reach users.",
              "Set the TTL of those two CNAME records to 300 seconds.",
              ["Fail over to the backup CDN within minutes."])),
    ("cloudfront", "decision", "2024-05-02", "Keep CloudFront ready as the secondary CDN",
     ["cloudfront", "cdn", "failover"],
     decision("Fastly serves www.gov.uk and assets.publishing.service.gov.uk.",
              "The cloudfront Terraform deployment configures AWS CloudFront for both hostnames.",
              ["A way out in a long Fastly outage, and a second supplier against lock-in."])),
    ("pkl", "decision", "2025-11-06", "Generate configuration with Pkl instead of writing YAML",
     ["pkl", "yaml", "configuration"],
     decision("Concourse pipelines and Crossplane compositions are YAML, on top of the Helm charts, user access and "
              "DNS YAML already maintained; we wanted typing, schemas, validation, IDE support and YAML or JSON "
              "output.",
              "Use Pkl.",
              ["It did best on two trials: rewriting the user access YAML and writing a Concourse pipeline."],
              alternatives=[("KCL", "similar aims but fewer features and less mature"),
                            ("Go", "short-listed, not chosen"),
                            ("Jsonnet", "packages come as third-party bundles"),
                            ("Dhall", "no IntelliJ support"),
                            ("Cue", "no official IDE support, a thin package ecosystem"),
                            ("JavaScript or Python", "large install footprint and constant package churn"),
                            ("Ruby", "no relevant packages")])),
    ("gatekeeper", "decision", "2026-07-07", "Enforce Kubernetes policy with OPA Gatekeeper",
     ["gatekeeper", "opa", "rego", "policy", "kyverno"],
     decision("A job request and approval system must stop anyone approving their own job; more generally we want "
              "policies on Kubernetes objects that can be tested outside a cluster.",
              "Adopt OPA Gatekeeper (policies in Rego) on every cluster, first in audit mode, enforcing rules only "
              "once we trust them.",
              ["A mature CNCF graduated project; Rego is testable; people on the team know it; Concourse also uses "
               "OPA."],
              alternatives=[("Kyverno", "met the need too, but policies in YAML or CEL")])),
    ("admission-policy", "decision", "2026-08-07", "Prefer Gatekeeper webhooks over CEL admission policies",
     ["admission-policy", "cel", "gatekeeper", "rego"],
     decision("Kubernetes 1.36 turns Validating and Mutating Admission Policies on by default: in process, faster, "
              "no webhook to run.",
              "Keep OPA and Rego through Gatekeeper webhooks; use an admission policy only where Gatekeeper cannot: "
              "a mutation that reads the userInfo of the AdmissionReview, or where latency matters.",
              ["Fewer languages for engineers to hold in their heads."])),
    ("gatekeeper-constraint", "runbook", "2026-07-20", "Add a new Gatekeeper constraint",
     ["gatekeeper", "constraint", "gator"],
     runbook("A new policy rule for the clusters.",
             ["Write a constraint template under resources/constraint_templates.",
              "Write the constraint under resources/constraints.",
              "Add it to constraint_map in constraints/locals.tf.",
              "Add it to dryrun_map in variables.tf and constraints/variables.tf (dry run first).",
              "Test with gator verify test/suite/... (samples in test/suite/samples/<suite>/: case.yaml, "
              "inventory.yaml)."],
             "gator verify passes and the audit report lists the constraint.")),
    ("gatekeeper-caveats", "constraint", "2026-07-21", "Gatekeeper: never delete a template that still has constraints",
     ["gatekeeper", "constrainttemplate", "crd"],
     constraint("Deleting a ConstraintTemplate while constraints still use it breaks Gatekeeper; only deleting the "
                "CRDs (which removes the constraints) unblocks it. No colons in a constraint's description field.",
                ["The audit reads a cache of synced objects (every 60 seconds), so every kind a constraint uses must "
                 "be synced."], kind="technical")),
    ("cluster-upgrade", "runbook", "2024-03-12", "Upgrade the EKS cluster to the next Kubernetes version",
     ["eks", "upgrade", "kubernetes"],
     runbook("A new Kubernetes minor version to move to.",
             ["Check EKS upgrade insights for each cluster and read the release notes, marking what affects us.",
              "Raise cluster_version in terraform/tfc-configuration/variables-<ENV>.tf by one minor version; merge.",
              "Apply the tfc-configuration workspace, then cluster-infrastructure-<ENV> (30 to 45 minutes: control "
              "plane, node groups, add-ons).",
              "Integration first, then staging, then production.",
              "After production, update the Kubernetes version in renovate.json (a workflow fails otherwise)."],
             "Nodes and add-ons report the new version in every environment.")),
    ("upgrade-no-rollback", "constraint", "2024-03-12", "A cluster upgrade cannot be rolled back",
     ["eks", "upgrade", "rollback"],
     constraint("EKS upgrades go one minor version at a time (1.17 to 1.18, never 1.17 to 1.21) and cannot be undone; "
                "going back means rebuilding the cluster.",
                ["Staging and integration go first so problems show there."], kind="technical")),
    ("new-environment", "runbook", "2023-02-01", "Stand up govuk-infrastructure in a new AWS account",
     ["environment", "bootstrap", "terraform", "aws-account"],
     runbook("A new environment in a fresh AWS account.",
             ["Get the account and administrator access; the VPC, databases and queues still come from govuk-aws.",
              "Create the Fastly service (or use a dummy www_dns_validation_rdata) and the prerequisite secrets.",
              "Apply the roots in order: tfc-bootstrap, tfc-configuration, ecr (test and production accounts only), "
              "cluster-infrastructure, cluster-services, then the rest.",
              "Deploy the apps with Argo CD from the app-config chart in govuk-helm-charts."],
             "Argo CD shows the apps healthy in the new cluster.")),
    ("one-ecr", "constraint", "2023-02-02", "One ECR registry serves every environment",
     ["ecr", "registry", "images"],
     constraint("Container images live in a single ECR registry shared by all environments; the ecr root is not "
                "deployed per environment.",
                ["No copying images between registries and no tags meaning different images in different places."],
                severity="medium", kind="technical")),
    ("prereq-secrets", "runbook", "2023-02-03", "Create the prerequisite secrets in Secrets Manager",
     ["secrets", "secretsmanager", "dex", "oauth"],
     runbook("cluster-services will not fully work until some secrets exist.",
             ["Create the externally generated ones, such as govuk/dex/github, the OAuth app shared between Dex and "
              "GitHub (GitHub admin portal).",
              "Generate the shared ones by hand, such as the OAuth secret between Argo CD and Dex.",
              "App secrets are copied from govuk-secrets; the full list is the cluster-secrets chart in "
              "govuk-helm-charts.",
              "Store each as a JSON object of keys and values."],
             "External secrets report SecretSynced.")),
    ("app-secrets", "runbook", "2023-02-04", "Give an app a secret from Secrets Manager",
     ["secrets", "externalsecret", "clustersecretstore"],
     runbook("An application needs a value stored in AWS Secrets Manager.",
             ["Define an ExternalSecret in the app's chart pointing at the ClusterSecretStore aws-secretsmanager.",
              "Reference the Kubernetes Secret it creates in the app's Helm values.",
              "The platform team owns the ClusterSecretStore (short-lived service account token); app teams own "
              "their ExternalSecrets."],
             "The Secret exists in the namespace and stays in step with Secrets Manager.")),
    ("secret-rotation", "tech_debt", "2021-09-01", "Rotated secrets do not restart the pods that use them",
     ["secrets", "rotation", "reloader"],
     debt("external-secrets updates the Kubernetes Secret after a rotation in Secrets Manager, but running pods keep "
          "the old value until restarted.",
          "No component chosen yet; how secrets get into Secrets Manager is also undecided.",
          fix=["Add something like Reloader to roll deployments when their secrets change."])),
    ("govuk-aws-dependency", "tech_debt", "2023-02-05", "govuk-infrastructure still leans on govuk-aws",
     ["govuk-aws", "migration", "vpc"],
     debt("The VPC, databases and message queues are still created by the older govuk-aws repository (the EC2 and "
          "Puppet stack), so new environments need an account that already has them.",
          "Moving them is planned but not scheduled.", priority="low")),
    ("fastly-setup", "runbook", "2023-02-06", "Set up Fastly for a new environment",
     ["fastly", "cdn", "tls", "certificate"],
     runbook("A new environment needs the CDN in front.",
             ["In the Fastly portal, create a Let's Encrypt certificate for www.eks.<environment>.govuk.digital and "
              "attach it to the govuk TLS configuration.",
              "Add a CNAME to the value of www_dns_validation_rdata in the environment's common.tfvars.",
              "Create a CDN service named after the environment; note its service id.",
              "Open a pull request in govuk-cdn-config-secrets with the service under www-eks, then deploy Fastly."],
             "The environment answers over HTTPS through Fastly.")),
    ("module-pinning", "preference", "2024-01-15", "Pin shared Terraform modules to a commit hash",
     ["terraform", "modules", "pinning"],
     preference("shared Terraform modules", "Use the modules in terraform/shared-modules (for example the s3 one) "
                "with source github.com/alphagov/govuk-infrastructure/...?ref=<full commit hash>, never a branch.",
                "A moving reference changes your infrastructure without a change in your code.", strength="strong")),
    ("aws-tagging", "preference", "2022-05-10", "Tag every AWS resource for billing and search",
     ["tagging", "billing", "aws-tags"],
     preference("AWS resource tags", "Every resource carries chargeable_entity, environment, project, repository, "
                "terraform_deployment and terraform_workspace from the default set, plus a Name of "
                "<service>-<environment>-<workspace> merged in locally.",
                "Costs are split by these tags, and the console can search by tag key.")),
    ("ephemeral-cluster", "runbook", "2025-04-22", "Spin up an ephemeral EKS cluster to test a change",
     ["ephemeral", "eks", "testing"],
     runbook("Trying a platform change on a throwaway cluster.",
             ["export EPH_CLUSTER_ID=eph-<six characters> and cd terraform/deployments/ephemeral.",
              "terraform login, terraform init, then terraform apply -var ephemeral_cluster_id=$EPH_CLUSTER_ID "
              "(add -var git_branch=<branch> for a branch other than main).",
              "aws eks update-kubeconfig --name $EPH_CLUSTER_ID once cluster_access has applied.",
              "Run ./validate.sh; Grafana, Alertmanager and Prometheus are at <app>.<id>.ephemeral.govuk.digital."],
             "validate.sh passes and the watchdog alert fires in Alertmanager.")),
    ("session-cicd-prototypes", "session_summary", "2025-07-30", "Session: Kargo and Concourse prototypes",
     ["concourse", "kargo", "prototype"],
     session("Try the two candidates from the CI/CD design day against a copy of today's deploy flow.",
             ["Kargo promoted across mock staging and production clusters only with undocumented sharding; an Argo "
              "Rollouts workaround disabled validation.",
              "Concourse built, deployed, validated and promoted an image from a Git commit, with a learning curve."],
             ["Play both back to the team and write the decision record."])),
    ("session-design-day", "session_summary", "2025-10-15", "Session: platform design day on deploys and abstraction",
     ["concourse", "crossplane", "design-day"],
     session("Settle where Concourse runs and how app teams describe their infrastructure.",
             ["Chose Concourse per environment plus a central build Concourse.",
              "Chose Crossplane for a higher-level API; app infrastructure code to move into app repositories."],
             ["Pick a YAML generation tool.", "Write the decision records for both."])),
    ("session-yaml-tools", "session_summary", "2025-11-03", "Session: comparing configuration languages",
     ["pkl", "kcl", "yaml"],
     session("Shortlist a way to stop hand-writing YAML.",
             ["Long list of nine; short list KCL, Pkl and Go; rewrote the user access YAML and a pipeline in each."],
             ["Team discussion, then the decision record."], outcome="partial")),
    ("router-overlap", "tech_debt", "2021-08-20", "Ingress and the GOV.UK router overlap",
     ["router", "ingress", "routing"],
     debt("The GOV.UK router and Kubernetes ingress both route requests by host and path; which owns what is not "
          "settled, so both Ingress and Service load balancers are kept possible.",
          "Needs its own investigation.", priority="low")),
]

# kind: what the question tests; question; expected ids
QUESTIONS = [
    # decision records and their reasons, asked in other words
    ("paraphrase", "where do we write down why we picked a tool?", ["adr-records"]),
    ("paraphrase", "did we write our own terraform for the kubernetes cluster or reuse something?", ["eks-module"]),
    ("detail", "which registry module builds the eks cluster", ["eks-module"]),
    ("paraphrase", "why is the cluster terraform applied in two steps?", ["split-state"]),
    ("detail", "should manage_aws_auth be on in the eks module", ["split-state"]),
    ("short", "cluster-services vs cluster-infrastructure?", ["split-state", "new-environment"]),
    ("paraphrase", "what puts a load balancer in front of the cluster", ["lb-controller"]),
    ("detail", "can the alb controller use a letsencrypt cert?", ["lb-controller"]),
    ("paraphrase", "every ingress is getting its own ALB, is that expected?", ["lb-controller"]),
    ("paraphrase", "why don't we run pods on fargate?", ["managed-nodes"]),
    ("detail", "who drains the nodes when we upgrade eks", ["managed-nodes", "cluster-upgrade"]),
    ("paraphrase", "why helm and not kustomize for app packaging?", ["helm"]),
    ("detail", "can I helm rollback an app after its db migration ran?", ["helm"]),
    ("paraphrase", "where do container logs end up and how are they collected", ["logging"]),
    ("short", "fluentd or fluent bit?", ["logging"]),
    ("paraphrase", "how do pods get secrets out of aws secrets manager", ["external-secrets", "app-secrets"]),
    ("paraphrase", "why not the secrets store csi driver?", ["external-secrets"]),
    ("detail", "I rotated a password in secrets manager but the app still uses the old one", ["secret-rotation",
                                                                                              "external-secrets"]),
    ("paraphrase", "how do I get a dns name for my ingress without touching terraform", ["external-dns"]),
    ("detail", "which annotation sets the hostname record", ["external-dns"]),
    ("paraphrase", "how do people log in to grafana and alertmanager", ["dex"]),
    ("detail", "can we use github directly as the identity provider on the alb?", ["dex"]),
    ("short", "dex for kubectl auth?", ["dex"]),
    ("paraphrase", "why are we moving the nodes to arm", ["graviton"]),
    ("detail", "how much did switching to graviton save?", ["graviton"]),
    ("paraphrase", "can an internal tool on govuk.digital look like the public site?", ["domain-policy"]),
    ("detail", "is it ok for a favicon to come from govuk-internal.digital", ["domain-policy"]),
    ("paraphrase", "how do I scale a worker on its sidekiq queue length instead of cpu", ["hpa-external-metrics"]),
    ("detail", "the external metrics apiservice went unavailable after a rule change", ["hpa-external-metrics"]),
    ("paraphrase", "where does terraform state live now that we left terraform cloud", ["tf-state-s3"]),
    ("detail", "how long are old state versions kept in the bucket", ["tf-state-s3"]),
    ("detail", "what goes in the backend block for the new state buckets", ["tf-backend-block"]),
    ("paraphrase", "which role can write and lock the terraform state", ["tf-state-s3"]),
    ("paraphrase", "is there a role I can give a pen tester that can't change anything", ["readonly-role"]),
    ("detail", "can the read only role see parameter store values", ["readonly-role"]),
    ("paraphrase", "we still have an iam user with long lived keys for a vendor, what's the policy", ["iam-roles"]),
    ("paraphrase", "can I add a github topic to give my repo the deploy secrets?", ["github-topics", "github-config"]),
    ("detail", "how do I turn on branch protection for a new repo", ["github-config"]),
    ("paraphrase", "what are we replacing github actions and argo workflows with for deploys", ["concourse"]),
    ("short", "why not kargo?", ["concourse", "session-cicd-prototypes"]),
    ("paraphrase", "why is the image built only once and reused across environments", ["cicd-structure"]),
    ("detail", "what does the pipeline do after argo cd reports the deploy succeeded", ["cicd-structure"]),
    ("paraphrase", "why not one central concourse that deploys to every account", ["cicd-structure"]),
    ("paraphrase", "what will replace the big generic app helm chart", ["crossplane"]),
    ("short", "crossplane backing services?", ["crossplane"]),
    ("paraphrase", "how fast can we fail over www to cloudfront", ["fastly-ttl"]),
    ("detail", "what ttl do the cdn cname records have", ["fastly-ttl"]),
    ("paraphrase", "do we have a backup cdn if fastly is down", ["cloudfront", "fastly-ttl"]),
    ("paraphrase", "what do we write concourse pipelines in instead of raw yaml", ["pkl"]),
    ("detail", "why did cue and dhall lose out", ["pkl"]),
    ("paraphrase", "how do we stop someone approving their own job in the cluster", ["gatekeeper"]),
    ("short", "kyverno or gatekeeper?", ["gatekeeper"]),
    ("paraphrase", "should I write this policy as a validating admission policy in cel", ["admission-policy"]),
    ("detail", "how do I test a gatekeeper policy locally", ["gatekeeper-constraint"]),
    ("paraphrase", "steps to add a new constraint to the clusters", ["gatekeeper-constraint"]),
    ("detail", "gatekeeper is stuck after I removed a constraint template", ["gatekeeper-caveats"]),
    ("paraphrase", "how do we move the cluster to a newer kubernetes version", ["cluster-upgrade"]),
    ("detail", "can we jump two kubernetes versions in one go?", ["upgrade-no-rollback"]),
    ("detail", "the upgrade broke something, can we roll the cluster back?", ["upgrade-no-rollback"]),
    ("detail", "what do I change in renovate after upgrading production", ["cluster-upgrade"]),
    ("paraphrase", "how do I stand up the platform in a brand new aws account", ["new-environment"]),
    ("detail", "which terraform roots do I apply first on a fresh account", ["new-environment"]),
    ("paraphrase", "why is there only one container registry", ["one-ecr"]),
    ("paraphrase", "which secrets have to exist before cluster-services works", ["prereq-secrets"]),
    ("detail", "where does the dex github oauth secret come from", ["prereq-secrets"]),
    ("paraphrase", "my app needs a database password from secrets manager, what do I add", ["app-secrets"]),
    ("paraphrase", "what still comes from the old govuk-aws repo", ["govuk-aws-dependency"]),
    ("paraphrase", "how do I put fastly in front of a new environment", ["fastly-setup"]),
    ("detail", "where do I add the new fastly service id", ["fastly-setup"]),
    ("paraphrase", "can I reference the shared s3 module from main?", ["module-pinning"]),
    ("paraphrase", "what tags does every aws resource need", ["aws-tagging"]),
    ("detail", "what is the chargeable_entity tag for", ["aws-tagging"]),
    ("paraphrase", "how do I get a throwaway cluster to try my change", ["ephemeral-cluster"]),
    ("detail", "where is grafana on an ephemeral cluster", ["ephemeral-cluster"]),
    ("paraphrase", "what did we find when we prototyped kargo", ["session-cicd-prototypes"]),
    ("paraphrase", "what came out of the october design day", ["session-design-day"]),
    ("paraphrase", "which config languages were on the short list", ["session-yaml-tools", "pkl"]),
    ("paraphrase", "who owns routing, the router app or the ingress?", ["router-overlap"]),
    # two facts in two records
    ("two", "we moved off terraform cloud, so what applies terraform now and where is the state?",
     ["tf-state-s3", "concourse"]),
    ("two", "how does a secret get from aws into my pod and what happens when it rotates?",
     ["app-secrets", "secret-rotation"]),
    ("two", "what policy engine do we use and why not the built-in admission policies?",
     ["gatekeeper", "admission-policy"]),
    ("two", "what's the upgrade procedure for eks and what if it goes wrong?",
     ["cluster-upgrade", "upgrade-no-rollback"]),
    ("two", "which cdn serves www and how quickly can we switch away from it?", ["fastly-ttl", "cloudfront"]),
    ("two", "why concourse, and how are the environments laid out?", ["concourse", "cicd-structure"]),
    # unrelated prompts (some share a common word with the store)
    ("silent", "write a python function that reverses a linked list", []),
    ("silent", "what's a good name for a team slack channel about lunch", []),
    ("silent", "explain the difference between a process and a thread", []),
    ("silent", "help me write a cover letter for a designer job", []),
    ("silent", "how do I centre a div vertically in css", []),
    ("silent", "summarise this meeting transcript in three bullet points", []),
    ("silent", "what's the capital of australia", []),
    ("silent", "convert 5 miles to kilometres", []),
    ("silent", "how do I make sourdough starter at home", []),
    ("silent", "fix the failing unit test in the date parser", []),
    ("silent", "rename this variable to something clearer", []),
    ("silent", "what does the http 418 status code mean", []),
    ("silent", "can you review my sql query for a left join", []),
    ("silent", "translate good morning into japanese", []),
    ("silent", "write a haiku about the sea", []),
    ("silent", "how do I undo my last git commit but keep the changes", []),
    ("silent", "recommend a book about product management", []),
    ("silent", "what's the best way to learn rust", []),
    ("silent", "how many calories are in a banana", []),
    ("silent", "draft a polite reply declining the meeting", []),
    ("silent", "how do I sort a dictionary by value in python", []),
    ("silent", "what is the time complexity of quicksort", []),
    ("silent", "my laptop battery drains fast, any tips?", []),
    ("silent", "set up eslint with prettier in a react project", []),
    ("silent", "what should I cook for dinner tonight", []),
    ("silent", "explain oauth scopes to a beginner", []),
    ("silent", "write a regex that matches an email address", []),
    ("silent", "how do I cache api responses in the browser", []),
    ("silent", "what's the weather usually like in lisbon in may", []),
    ("silent", "help me plan a team offsite agenda", []),
]
