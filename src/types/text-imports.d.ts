// Prompts, tool descriptions and SQL are imported as text (`with { type: "text" }`) so the binary is hermetic.
declare module "*.md" {
  const text: string;
  export default text;
}
declare module "*.sql" {
  const text: string;
  export default text;
}
